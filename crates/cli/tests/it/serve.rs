//! `pawl serve` and `pawl dashboard` end to end: the ready line, one daemon per user,
//! repositories registering themselves, and the dashboard in a real headless Chromium driven
//! over WebDriver while a replay run progresses (screenshots in `target/screenshots/`).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config};

/// A `pawl serve --port 0 --json` child and its ready line; killed when dropped.
struct Daemon {
    child: Child,
    ready: Value,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Daemon {
    fn start(env: &TestEnv) -> Daemon {
        let mut child = env
            .command("pawl")
            .args(["serve", "--port", "0", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let ready: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        Daemon { child, ready }
    }

    fn url(&self) -> &str {
        self.ready["url"].as_str().unwrap()
    }

    fn token(&self) -> String {
        std::fs::read_to_string(self.ready["token_file"].as_str().unwrap())
            .unwrap()
            .trim()
            .to_string()
    }

    fn api(&self, path: &str) -> (u16, Value) {
        let auth = format!("Bearer {}", self.token());
        http(
            "GET",
            &format!("{}{path}", self.url()),
            &[("Authorization", &auth)],
            None,
        )
    }
}

/// One HTTP/1.1 exchange with a server on this machine.
fn http(method: &str, url: &str, headers: &[(&str, &str)], body: Option<&Value>) -> (u16, Value) {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        req.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    s.write_all(req.as_bytes()).unwrap();
    // Read the head, then exactly the body it announces (chromedriver keeps connections open).
    let mut reader = BufReader::new(s);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let lower = head.to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let length = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let body = if let Some(n) = length {
        let mut buf = vec![0; n];
        reader.read_exact(&mut buf).unwrap();
        String::from_utf8_lossy(&buf).into_owned()
    } else if lower.contains("transfer-encoding: chunked") {
        let mut out = Vec::new();
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut buf = vec![0; n + 2];
            reader.read_exact(&mut buf).unwrap();
            out.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&out).into_owned()
    } else {
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
        rest
    };
    (
        status,
        serde_json::from_str(&body).unwrap_or(Value::String(body)),
    )
}

fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if cond() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

fn state_dir(env: &TestEnv) -> PathBuf {
    env.dir.path().join("home/.local/state/pawl")
}

#[test]
fn serve_prints_its_ready_line_once_per_user_and_follows_added_repositories() {
    let env = TestEnv::new();
    // `pawl init` registers the repository with the (future) daemon.
    env.ok(&["init"]);
    let registry = std::fs::read_to_string(state_dir(&env).join("repos.json")).unwrap();
    assert!(
        registry.contains(&env.root().canonicalize().unwrap().display().to_string()),
        "{registry}"
    );

    let d = Daemon::start(&env);
    assert!(d.url().starts_with("http://127.0.0.1:"), "{}", d.ready);
    assert!(
        d.ready["dashboard"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/auth?code=", d.url()))
    );
    assert_eq!(d.ready["pid"], d.child.id());
    assert_eq!(d.token().len(), 64);
    assert_eq!(d.api("/api/v1/repos").0, 200);
    let (status, _) = http("GET", &format!("{}/api/v1/runs", d.url()), &[], None);
    assert_eq!(status, 401);

    // A second daemon for the same user exits 1 at once, naming the first.
    let second = env.pawl(&["serve", "--port", "0"]);
    assert_eq!(second.code, 1, "{}", second.stderr);
    assert!(second.stderr.contains(d.url()), "{}", second.stderr);
    assert!(
        second.stderr.contains(&format!("pid {}", d.child.id())),
        "{}",
        second.stderr
    );

    // `--add` while it runs: registered, and served.
    let other = env.dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let added = env.pawl(&["serve", "--add", other.to_str().unwrap()]);
    assert_eq!(added.code, 0, "{}{}", added.stdout, added.stderr);
    let (_, repos) = d.api("/api/v1/repos");
    assert_eq!(repos["repos"].as_array().unwrap().len(), 2, "{repos}");

    // `pawl dashboard` makes a new one-time link.
    let link = env.ok(&["dashboard", "--json"]);
    let link: Value = serde_json::from_str(link.stdout.trim()).unwrap();
    assert!(link["dashboard"].as_str().unwrap().starts_with(d.url()));

    // Without --json, `pawl dashboard` opens the dashboard with the user's browser ($BROWSER
    // here: a stand-in that records what it was given and, while it runs, every process's
    // command line — what any user of the machine can read in /proc).
    let opened = env.dir.path().join("opened");
    let cmdlines = env.dir.path().join("cmdlines");
    let browser = env.dir.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\nprintf '%s' \"$*\" > '{}'\nfor f in /proc/[0-9]*/cmdline; do tr '\\000' ' ' < \"$f\" 2>/dev/null; echo; done > '{}'\n",
            opened.display(),
            cmdlines.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = env.pawl_env(&["dashboard"], &[("BROWSER", browser.to_str().unwrap())]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("Opened the dashboard"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("/auth?code="), "{}", out.stdout);
    // The browser got a page only the user can read; the link is in it, not on its command line.
    let given = std::fs::read_to_string(&opened).unwrap();
    let seen = std::fs::read_to_string(&cmdlines).unwrap();
    assert!(
        !seen.contains("/auth?code="),
        "a one-time link on a command line: {given}"
    );
    let page = PathBuf::from(&given);
    assert!(
        page.is_absolute() && page.starts_with(state_dir(&env)),
        "{given}"
    );
    let mode = std::fs::metadata(&page).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{}", page.display());
    let html = std::fs::read_to_string(&page).unwrap();
    let link = html
        .split("url=")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    assert!(
        link.starts_with(d.url()) && link.contains("/auth?code="),
        "{html}"
    );
    let code = link.split("code=").nth(1).unwrap();
    let seen = std::fs::read_to_string(&cmdlines).unwrap();
    assert!(
        seen.contains("browser.sh") && seen.contains("dashboard"),
        "the scan saw the processes: {seen}"
    );
    assert!(
        !seen.contains("/auth?code="),
        "a one-time link on a command line: {seen}"
    );
    assert!(!seen.contains(code), "the one-time link on a command line");
    assert!(
        !seen.contains(&d.token()),
        "the API token on a command line"
    );
    // The link in the page opens the dashboard, once.
    let (status, _) = http("GET", &link, &[], None);
    assert_eq!(status, 303);
    let (status, _) = http("GET", &link, &[], None);
    assert_eq!(status, 401);
    // --print: the link on stdout, nothing opened.
    std::fs::remove_file(&opened).unwrap();
    let out = env.pawl_env(
        &["dashboard", "--print"],
        &[("BROWSER", browser.to_str().unwrap())],
    );
    assert!(out.stdout.contains("/auth?code="), "{}", out.stdout);
    assert!(!opened.exists());

    // Not loopback without --public: a usage error before anything starts.
    let public = env.pawl(&["serve", "--bind", "0.0.0.0", "--port", "0"]);
    assert_eq!(public.code, 2, "{}", public.stderr);
}

// ---- a real browser ----

/// The smallest W3C WebDriver client: a session on a chromedriver child.
struct Browser {
    driver: Child,
    base: String,
    session: String,
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = http(
                "DELETE",
                &format!("{}/session/{}", self.base, self.session),
                &[],
                None,
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file())
}

impl Browser {
    fn start(chromium: &Path, driver: &Path) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        // Owned from here: a failed start still ends chromedriver.
        let mut browser = Browser {
            driver: child,
            base: base.clone(),
            session: String::new(),
        };
        wait_for("chromedriver", || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
                && http("GET", &format!("{base}/status"), &[], None).1["value"]["ready"] == true
        });
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"],
        }}}});
        let (status, v) = http("POST", &format!("{base}/session"), &[], Some(&caps));
        assert_eq!(status, 200, "{v}");
        browser.session = v["value"]["sessionId"].as_str().unwrap().to_string();
        browser
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let body = body.or_else(|| (method == "POST").then(|| json!({})));
        let (status, v) = http(method, &url, &[], body.as_ref());
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn go(&self, url: &str) {
        self.call("POST", "/url", Some(json!({"url": url})));
    }

    fn script(&self, js: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": js, "args": []})),
        )
    }

    fn count(&self, css: &str) -> usize {
        let js = format!("return document.querySelectorAll({}).length", json!(css));
        self.script(&js).as_u64().unwrap_or(0) as usize
    }

    fn text(&self, css: &str) -> String {
        let js = format!(
            "const e = document.querySelector({}); return e ? e.textContent : ''",
            json!(css)
        );
        self.script(&js).as_str().unwrap_or_default().to_string()
    }

    /// A real click on the element; found again when the live page re-rendered it between
    /// the lookup and the click (a stale element), a bounded number of times.
    fn click(&self, css: &str) {
        let url = |p: &str| format!("{}/session/{}{p}", self.base, self.session);
        for _ in 0..50 {
            let find = json!({"using": "css selector", "value": css});
            let (status, e) = http("POST", &url("/element"), &[], Some(&find));
            let Some(id) = e["value"]["element-6066-11e4-a52e-4f735466cecf"].as_str() else {
                assert_ne!(status, 200, "{e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            };
            let (status, v) = http(
                "POST",
                &url(&format!("/element/{id}/click")),
                &[],
                Some(&json!({})),
            );
            if status == 200 {
                return;
            }
            assert_eq!(v["value"]["error"], "stale element reference", "{v}");
        }
        panic!("could not click {css}");
    }

    fn resize(&self, width: u32, height: u32) {
        self.call(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    fn screenshot(&self, name: &str) {
        let b64 = self.call("GET", "/screenshot", None);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("{name}.png")),
            base64(b64.as_str().unwrap()),
        )
        .unwrap();
    }
}

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// [`wait_for`] that shows what the page says when the wait fails.
fn wait_for_page(b: &Browser, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if cond() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    b.screenshot("failed");
    let text = b.script("return document.body.innerText");
    panic!("timed out waiting for {what}; the page says:\n{text}");
}

/// A step that says it started (`../home/marks/<name>`) and waits for `../home/marks/<name>.go`.
fn held_step(name: &str) -> String {
    json!({"do": "run", "command": format!(
        "touch ../home/marks/{name}; while [ ! -e ../home/marks/{name}.go ]; do sleep 0.05; done"
    )})
    .to_string()
}

#[test]
fn the_dashboard_follows_a_replay_run_live_and_stops_it_in_a_real_browser() {
    let (Some(chromium), Some(driver)) = (
        find_program(&["chromium", "chromium-browser", "google-chrome"]),
        find_program(&["chromedriver"]),
    ) else {
        // CI installs them (scripts/install-browser.sh): there the test always runs.
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium and chromedriver are needed under CI"
        );
        eprintln!(
            "skipped: no chromium/chromedriver on PATH (scripts/install-browser.sh installs them)"
        );
        return;
    };
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 10\n", NO_BREAKERS, ""));
    let marks = env.dir.path().join("home/marks");
    let s = env.scenario(
        "s",
        &format!(
            "{{\"step\": 1}}\n{}\n{{\"step\": 2}}\n{}\n{{\"step\": 3}}\n{{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\"}}\n",
            held_step("one"),
            held_step("two")
        ),
    );
    let d = Daemon::start(&env);
    let run = env
        .command("pawl")
        .args(["run", "make done.txt", "--scenario", &s])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    struct Reap(Child);
    impl Drop for Reap {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut run = Reap(run);
    wait_for("step 1", || marks.join("one").exists());
    let (_, runs) = d.api("/api/v1/runs?status=active");
    let id = runs["runs"][0]["id"].as_str().unwrap().to_string();

    let b = Browser::start(&chromium, &driver);
    // `pawl dashboard` hands the browser a page only the user can read (the link is on no
    // command line); the browser follows it to the one-time link, which opens its session.
    let opened = env.dir.path().join("opened");
    let stand_in = env.dir.path().join("browser.sh");
    std::fs::write(
        &stand_in,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = env.pawl_env(&["dashboard"], &[("BROWSER", stand_in.to_str().unwrap())]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let page = std::fs::read_to_string(&opened).unwrap();
    b.go(&format!("file://{page}"));
    wait_for_page(&b, "the runs page", || {
        b.count(&format!("#runs-table tr[data-run='{id}']")) == 1
    });
    // The key left the address bar; the session cookie is not the page's to read.
    assert_eq!(b.script("return location.href"), format!("{}/", d.url()));
    assert_eq!(
        b.script("return document.cookie.includes('pawl_session')"),
        false
    );
    b.screenshot("runs");
    b.go(&format!("{}/run?id={id}", d.url()));
    wait_for_page(&b, "iteration 1 on the run page", || {
        b.count("#iterations tr[data-n='1']") == 1
    });
    assert_eq!(b.count("#iterations tr[data-n='2']"), 0);
    b.script("window.__sameDocument = true; return true");

    // Step 1 ends; iteration 2 appears without a reload.
    std::fs::write(marks.join("one.go"), "").unwrap();
    wait_for("step 2", || marks.join("two").exists());
    wait_for_page(&b, "iteration 2, live", || {
        b.count("#iterations tr[data-n='2']") == 1
    });
    assert_eq!(
        b.script("return window.__sameDocument === true"),
        true,
        "the page was reloaded"
    );
    b.screenshot("run-live");

    // Stop with the button: the request is in the store, and the run stops after its step.
    b.click("#btn-stop");
    wait_for("the stop request", || {
        env.root().join(".pawl/stop").exists()
    });
    std::fs::write(marks.join("two.go"), "").unwrap();
    let status = run.0.wait().unwrap();
    assert_eq!(status.code(), Some(6), "stopped");
    assert_eq!(env.run_state().0, "stopped");
    let stop_event = env.count(&format!(
        "SELECT COUNT(*) FROM events WHERE run_id = '{id}' AND kind = 'stop_requested' AND json_extract(data_json, '$.origin') = 'dashboard'"
    ));
    assert_eq!(stop_event, 1);
    wait_for_page(&b, "the page to show it stopped", || {
        b.script(
            "const e = document.querySelector('#run-status'); return e ? e.dataset.status : ''",
        ) == "stopped"
    });

    // A stale tab: its action is refused with the conflict message, and nothing changes.
    let limits_before = env.count(&format!(
        "SELECT COUNT(*) FROM events WHERE run_id = '{id}' AND kind = 'limits_changed'"
    ));
    // A tab that lost its stream: nothing re-renders it any more, and it acts on what it showed.
    b.script("window.pawlDashboard.source.close(); return true");
    wait_for_page(&b, "no refresh pending or in flight", || {
        b.script("const s = window.pawlDashboard; return s.pending === null && s.loading === 0")
            == true
    });
    b.script("window.pawlDashboard.version = 1; return true");
    b.click("#btn-resume");
    wait_for_page(&b, "the conflict message", || {
        b.text("#message").contains("Conflict")
    });
    assert_eq!(
        b.script("return document.querySelector('#message').className"),
        "message conflict"
    );
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) FROM events WHERE run_id = '{id}' AND kind = 'limits_changed'"
        )),
        limits_before
    );
    b.screenshot("conflict");

    // Phone-sized.
    b.resize(390, 844);
    b.go(&format!("{}/run?id={id}", d.url()));
    wait_for_page(&b, "the run page on a phone", || b.count("#btn-stop") == 1);
    let overflow = b.script("return document.documentElement.scrollWidth <= window.innerWidth + 1");
    assert_eq!(overflow, true, "the page fits a phone's width");
    b.screenshot("run-phone");

    // The runs list on a phone: the verdict column is on screen, nothing scrolls sideways.
    b.go(&format!("{}/", d.url()));
    wait_for_page(&b, "the runs page on a phone", || {
        b.count(&format!("#runs-table tr[data-run='{id}']")) == 1
    });
    let verdict_on_screen = b.script(&format!(
        "const c = document.querySelector(\"#runs-table tr[data-run='{id}'] td:nth-child(3)\"); const r = c.getBoundingClientRect(); return r.width > 0 && r.right <= window.innerWidth + 1"
    ));
    assert_eq!(verdict_on_screen, true, "the verdict column at 390 px");
    let fits = b.script("return document.documentElement.scrollWidth <= window.innerWidth + 1");
    assert_eq!(fits, true, "the runs page fits a phone's width");
    b.screenshot("runs-phone");

    // An API error shows the server's own message (never a TypeError), at 390 and 1280 px.
    let (code, body) = d.api("/api/v1/runs/no-such-run");
    assert_eq!(code, 404, "{body}");
    let message = body["message"].as_str().unwrap().to_owned();
    for (w, h) in [(390, 844), (1280, 900)] {
        b.resize(w, h);
        b.go(&format!("{}/run?id=no-such-run", d.url()));
        wait_for_page(&b, "the server's message", || b.count("#api-error") == 1);
        let shown = b.text("#api-error");
        assert_eq!(shown, message, "at {w} px");
        assert!(!b.text("#main").contains("TypeError"), "at {w} px");
        b.screenshot(&format!("api-error-{w}"));
    }
}

/// `pawl serve --add postgres://…`: the daemon serves every run of a shared store (a fleet's,
/// docs/fleet.md) beside the registered repositories.
#[test]
fn serve_lists_the_runs_of_a_shared_store() {
    let Some(url) = crate::fleet_harness::server_schema("serve") else {
        return;
    };
    let env = TestEnv::new();
    env.headless(&crate::headless::config(
        "",
        crate::headless::NO_BREAKERS,
        "",
    ));
    let s = env.scenario(
        "s",
        r#"{"do": "write", "path": "done.txt", "content": "ok"}"#,
    );
    let r = env.pawl_env(
        &["run", "make done.txt", "--scenario", &s, "--json"],
        &[("PAWL_STORE_URL", &url)],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let d = Daemon::start(&env);
    let added = env.pawl(&["serve", "--add", &url]);
    assert_eq!(added.code, 0, "{}{}", added.stdout, added.stderr);
    let (_, repos) = d.api("/api/v1/repos");
    let shared: Vec<&Value> = repos["repos"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["has_store"] == true && r["name"].as_str().unwrap().starts_with("postgres://")
        })
        .collect();
    assert_eq!(shared.len(), 1, "{repos}");
    let stored = crate::fleet_harness::Fleet::open_store(&url, &env.home);
    let run_id = stored.runs().unwrap()[0].id.clone();
    let (status, runs) = d.api("/api/v1/runs");
    assert_eq!(status, 200);
    assert!(runs.to_string().contains(&run_id), "{runs}");
    let (status, run) = d.api(&format!("/api/v1/runs/{run_id}"));
    assert_eq!(status, 200, "{run}");
}

/// A fleet job's run, driven in a clone of its own against a store many clones share, then the
/// clone deleted (the job ended on another machine): `pawl serve --add <store>` still serves
/// its report (the files it changed included) and its diff, cut to the bound with a marker —
/// from the store, where the run published them when it stopped. While the clone is here, the
/// diff comes from it.
fn serves_the_report_and_diff_of_a_run_whose_clone_is_gone(env: &TestEnv, store: &str) {
    let job = env.dir.path().join(format!("job-{}", store.len()));
    let out = env
        .command("git")
        .args(["clone", "-q"])
        .arg(env.root())
        .arg(&job)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Over the bound: 1.2 MB of new lines in `big.txt`, listed before `done.txt` in the patch.
    let line = "x".repeat(99);
    let big: String = (0..12_000).map(|i| format!("{i:05} {line}\n")).collect();
    let scenario = env
        .dir
        .path()
        .join(format!("home/big-{}.jsonl", store.len()));
    std::fs::write(
        &scenario,
        format!(
            "{}\n{}\n",
            json!({"do": "write", "path": "big.txt", "content": big}),
            json!({"do": "write", "path": "done.txt", "content": "ok"})
        ),
    )
    .unwrap();
    let out = env
        .command("pawl")
        .current_dir(&job)
        .args(["run", "make done.txt", "--scenario"])
        .arg(&scenario)
        .env("PAWL_STORE_URL", store)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let d = Daemon::start(env);
    let added = env.pawl(&["serve", "--add", store]);
    assert_eq!(added.code, 0, "{}{}", added.stdout, added.stderr);
    let mut run_id = String::new();
    wait_for("the shared store's run", || {
        let (_, runs) = d.api("/api/v1/runs");
        run_id = runs["runs"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["goal"] == "make done.txt")
            .map(|r| r["id"].as_str().unwrap().to_string())
            .unwrap_or_default();
        !run_id.is_empty()
    });
    let (status, diff) = d.api(&format!("/api/v1/runs/{run_id}/diff"));
    assert_eq!(status, 200, "{diff}");
    assert_eq!(diff["source"], "clone", "the clone is here");

    std::fs::remove_dir_all(&job).unwrap();
    let (status, diff) = d.api(&format!("/api/v1/runs/{run_id}/diff"));
    assert_eq!(status, 200, "{diff}");
    assert_eq!(diff["source"], "store");
    assert_eq!(diff["truncated"], true);
    assert_eq!(diff["branch"], format!("pawl/{run_id}"));
    let patch = diff["patch"].as_str().unwrap();
    assert!(
        patch.starts_with("diff --git a/big.txt b/big.txt"),
        "{}",
        &patch[..200]
    );
    assert!(patch.contains("+00000 xxx"), "the first lines are kept");
    assert!(!patch.contains("+11999 xxx"), "the last ones are cut");
    assert!(
        patch.len() <= pawl_engine::publish::DIFF_KEPT + 200,
        "{}",
        patch.len()
    );
    let whole = diff["patch_bytes"].as_u64().unwrap();
    assert!(whole > big.len() as u64, "{whole}");
    assert!(
        patch.ends_with(&format!(
            "[pawl: diff truncated: the first {} of {whole} bytes are kept in the store; the rest was only in the run's clone]\n",
            patch.find("[pawl: diff truncated").unwrap()
        )),
        "{}",
        &patch[patch.len() - 300..]
    );
    let (status, report) = d.api(&format!("/api/v1/runs/{run_id}/report"));
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["verdict"], "SHIP", "{report}");
    let files: Vec<&str> = report["files_changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["big.txt", "done.txt"], "{report}");
    assert_eq!(report["files_changed"][0]["insertions"], 12_000);
    let auth = format!("Bearer {}", d.token());
    let (status, md) = http(
        "GET",
        &format!("{}/api/v1/runs/{run_id}/report?format=markdown", d.url()),
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(status, 200);
    let md = md.as_str().unwrap();
    assert!(md.contains("big.txt") && md.contains("SHIP"), "{md}");
}

#[test]
fn serve_shows_a_gone_clone_s_report_and_diff_from_a_postgres_store() {
    let Some(url) = crate::fleet_harness::server_schema("gone") else {
        return;
    };
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    serves_the_report_and_diff_of_a_run_whose_clone_is_gone(&env, &url);
}

#[test]
fn serve_shows_a_gone_clone_s_report_and_diff_from_a_sqlite_store_file() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let store = env.dir.path().join("fleet.db");
    serves_the_report_and_diff_of_a_run_whose_clone_is_gone(&env, store.to_str().unwrap());
    // A file that is not a store is refused, naming it.
    let readme = env.root().join("README.md");
    let r = env.pawl(&["serve", "--add", readme.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("README.md"), "{}", r.stderr);
}

// ---- runs started from the dashboard ----

/// Opens a dashboard session as a browser does (`pawl dashboard --json`, then the one-time
/// link): the cookie (`name=value`) and the page's CSRF key.
fn dashboard_session(env: &TestEnv, d: &Daemon) -> (String, String) {
    let link = env.ok(&["dashboard", "--json"]).json()["dashboard"]
        .as_str()
        .unwrap()
        .to_string();
    let rest = link.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    assert_eq!(format!("http://{host}"), d.url());
    let mut s = TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut head = String::new();
    s.read_to_string(&mut head).unwrap();
    let header = |name: &str| {
        head.lines()
            .find_map(|l| {
                l.split_once(':')
                    .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| panic!("no {name} in {head}"))
    };
    let cookie = header("set-cookie").split(';').next().unwrap().to_string();
    let csrf = header("location")
        .split_once("#csrf=")
        .unwrap()
        .1
        .to_string();
    (cookie, csrf)
}

/// A `[agent] kind = "command"` agent that does nothing at its first step and writes
/// `done.txt` at its second (the gate is `test -f done.txt`).
fn two_step_agent() -> String {
    let script = "if [ -e ../home/marks/second ]; then echo ok > done.txt; else touch ../home/marks/second; fi";
    format!(
        "[agent]\nkind = \"command\"\ncommand = [\"sh\", \"-c\", {}]\n",
        json!(script)
    )
}

/// Issue 29: a run started from the dashboard is a run like one `pawl run` starts: its driver
/// is a detached `pawl run` that outlives the daemon (a restart finds it, resumable, never
/// driven twice), its clarifying questions wait in the store and are answered from the
/// dashboard (from the restarted daemon here), it stops on its limit with its exit code
/// recorded, and `pawl resume` in the clone finishes it.
#[test]
fn a_run_started_from_the_dashboard_outlives_the_daemon_and_is_resumed_from_the_cli() {
    let env = TestEnv::new();
    env.headless(&format!(
        "{}\n[pipeline]\nanswer_timeout = \"600s\"\n",
        crate::headless::config_with("", NO_BREAKERS, "", &two_step_agent(), "test -f done.txt")
    ));
    // The repository joins the served set from a shell whose environment asks for the spec
    // gate (the tests' own default switches it off): the run started from the dashboard gets
    // that environment, not the daemon's.
    let root = env.root().canonicalize().unwrap();
    let d = Daemon::start(&env);
    // (With a daemon running, `--add` only registers and records.)
    let added = env.pawl_env(
        &["serve", "--add", root.to_str().unwrap()],
        &[("PAWL_PIPELINE_SPEC_GATE", "true")],
    );
    assert_eq!(added.code, 0, "{}", added.stderr);
    let (cookie, csrf) = dashboard_session(&env, &d);
    let origin = d.url().to_string();
    let session = [
        ("Cookie", cookie.as_str()),
        ("X-Pawl-Csrf", csrf.as_str()),
        ("Origin", origin.as_str()),
    ];
    let body = json!({"repo": root, "goal": "make it better", "limits": {"max_iterations": 1},
        "checks": ["test -f done.txt"], "checks_confirmed": true});
    let (status, started) = http(
        "POST",
        &format!("{}/api/v1/runs", d.url()),
        &session,
        Some(&body),
    );
    assert_eq!(status, 202, "{started}");
    let driver = started["pid"].as_u64().unwrap();
    let start = format!(
        "{}/api/v1/starts/{}",
        d.url(),
        started["start"].as_str().unwrap()
    );
    let mut id = String::new();
    wait_for("the run to exist", || {
        let (_, s) = http("GET", &start, &session, None);
        assert_ne!(s["status"], "failed", "{s}");
        id = s["run"].as_str().unwrap_or_default().to_string();
        !id.is_empty()
    });
    let run_url = |d: &Daemon| format!("{}/api/v1/runs/{id}", d.url());
    wait_for("a question", || {
        let (_, r) = d.api(&format!("/api/v1/runs/{id}"));
        r["questions"].as_array().is_some_and(|q| !q.is_empty())
    });

    // The daemon goes; its driver does not.
    drop(d);
    assert!(
        Path::new(&format!("/proc/{driver}")).exists(),
        "the driver ended with the daemon"
    );
    let d = Daemon::start(&env);
    let (cookie, csrf) = dashboard_session(&env, &d);
    let origin = d.url().to_string();
    let session = [
        ("Cookie", cookie.as_str()),
        ("X-Pawl-Csrf", csrf.as_str()),
        ("Origin", origin.as_str()),
    ];
    let (status, run) = http("GET", &run_url(&d), &session, None);
    assert_eq!(status, 200, "{run}");
    assert_eq!(run["driver"], "headless");
    // Every question it asks is answered from the (new) dashboard, until it stops.
    let mut answered = 0;
    wait_for("the run to stop", || {
        let (_, run) = http("GET", &run_url(&d), &session, None);
        for q in run["questions"].as_array().into_iter().flatten() {
            if q["answer"].is_null() {
                let url = format!("{}/questions/{}", run_url(&d), q["id"]);
                let (s, a) = http(
                    "POST",
                    &url,
                    &session,
                    Some(&json!({"answer": "the README, one more line"})),
                );
                assert!(s == 200 || s == 409, "{a}");
                answered += usize::from(s == 200);
            }
        }
        run["stop_reason"].is_string()
    });
    assert!(answered > 0);
    assert_eq!(
        env.count("SELECT COUNT(*) FROM questions WHERE answered_by = 'dashboard' AND assumed = 0"),
        i64::try_from(answered).unwrap()
    );
    assert_eq!(
        env.count("SELECT COUNT(*) FROM questions WHERE answered_by <> 'dashboard'"),
        0
    );
    // Driven once: by the driver the first daemon started, never taken over.
    assert_eq!(
        env.count("SELECT COUNT(*) FROM events WHERE kind = 'lease_takeover'"),
        0
    );
    let (_, run) = http("GET", &run_url(&d), &session, None);
    assert_eq!(run["stop_reason"], "max_iterations", "{run}");
    assert_eq!(run["exit_code"], 3, "{run}");
    let report = env.ok(&["report", &id, "--json"]).json();
    assert_eq!(
        (report["stop_reason"].as_str(), report["exit_code"].as_i64()),
        (Some("max_iterations"), Some(3))
    );

    // The CLI resumes it as any run of its own, and it ships.
    let resumed = env.pawl(&["resume", &id, "--add-iterations", "1"]);
    assert_eq!(resumed.code, 0, "{}{}", resumed.stdout, resumed.stderr);
    let (_, run) = http("GET", &run_url(&d), &session, None);
    assert_eq!(
        (run["verdict"].as_str(), run["exit_code"].as_i64()),
        (Some("SHIP"), Some(0)),
        "{run}"
    );
    let report = env.ok(&["report", &id, "--json"]).json();
    assert_eq!(report["exit_code"], 0, "{report}");
    assert!(env.root().join("done.txt").exists());
}

/// Issue 29: the dashboard's form starts a run in the real browser — the repository's
/// recorded environment shown, the checks shown for confirmation before they are sent — and
/// the run's clarifying question is answered on its page; the run then ends as a CLI run does.
#[test]
fn the_dashboard_starts_a_run_and_answers_its_question_in_a_real_browser() {
    let (Some(chromium), Some(driver)) = (
        find_program(&["chromium", "chromium-browser", "google-chrome"]),
        find_program(&["chromedriver"]),
    ) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium and chromedriver are needed under CI"
        );
        eprintln!(
            "skipped: no chromium/chromedriver on PATH (scripts/install-browser.sh installs them)"
        );
        return;
    };
    let env = TestEnv::new();
    let agent = "[agent]\nkind = \"command\"\ncommand = [\"sh\", \"-c\", \"echo ok > done.txt\"]\n";
    env.headless(&format!(
        "{}\n[pipeline]\nanswer_timeout = \"600s\"\n",
        crate::headless::config_with("", NO_BREAKERS, "", agent, "test -f done.txt")
    ));
    let root = env.root().canonicalize().unwrap();
    let d = Daemon::start(&env);
    let added = env.pawl_env(
        &["serve", "--add", root.to_str().unwrap()],
        &[
            ("PAWL_PIPELINE_SPEC_GATE", "true"),
            ("SOME_API_KEY", "s3cret"),
        ],
    );
    assert_eq!(added.code, 0, "{}", added.stderr);
    let b = Browser::start(&chromium, &driver);
    let link = env.ok(&["dashboard", "--json"]).json()["dashboard"]
        .as_str()
        .unwrap()
        .to_string();
    b.go(&link);
    wait_for_page(&b, "the start form", || b.count("#start > summary") == 1);
    b.click("#start > summary");
    wait_for_page(&b, "the recorded environment", || {
        b.count("#start-env") == 1
    });
    let shown = b.text("#start-env");
    assert!(
        shown.contains("PAWL_PIPELINE_SPEC_GATE") && shown.contains("SOME_API_KEY"),
        "{shown}"
    );
    assert!(!shown.contains("s3cret"), "a secret value shown: {shown}");
    // On a phone the form, its environment open, fits the screen's width.
    b.resize(390, 844);
    b.click("#start-env > summary");
    let fits = b.script("return document.documentElement.scrollWidth <= window.innerWidth + 1");
    assert_eq!(fits, true, "the start form fits a phone's width");
    b.screenshot("start-phone");
    b.resize(1280, 1000);
    b.script(
        "document.querySelector('#start-goal').value = 'make it better';\
         document.querySelector('#start-checks').value = 'test -f done.txt';\
         document.querySelector('#start-max-iterations').value = '3'; return true",
    );
    b.click("#btn-start");
    // The checks are shown, exactly, before anything is sent.
    wait_for_page(&b, "the checks to confirm", || {
        b.count("#start-confirm-checks li") == 1
    });
    assert_eq!(b.text("#start-confirm-checks li"), "test -f done.txt");
    assert_eq!(
        env.count("SELECT COUNT(*) FROM runs"),
        0,
        "started before confirming"
    );
    b.screenshot("start-confirm");
    b.click("#btn-start-confirm");
    wait_for_page(&b, "the run page with its question", || {
        b.script("return location.pathname") == "/run"
            && b.count("#questions .question[data-q]") >= 1
    });
    b.screenshot("start-question");
    // Each question the run asks is answered on its page, until it ends.
    wait_for_page(&b, "the run to end", || {
        if b.count("#questions button[id^='btn-q-rec-']") > 0 {
            b.click("#questions button[id^='btn-q-rec-']");
            std::thread::sleep(Duration::from_millis(300));
        }
        b.script(
            "const e = document.querySelector('#run-status'); return e ? e.dataset.status : ''",
        ) == "done"
    });
    assert_eq!(
        env.count("SELECT COUNT(*) FROM questions WHERE answered_by <> 'dashboard'"),
        0
    );
    assert!(env.count("SELECT COUNT(*) FROM questions") >= 1);
    let id = env.strings("SELECT id FROM runs")[0].clone();
    let report = env.ok(&["report", &id, "--json"]).json();
    let (_, run) = d.api(&format!("/api/v1/runs/{id}"));
    assert_eq!(run["exit_code"], report["exit_code"], "{run}");
    assert_eq!(run["verdict"], report["verdict"], "{run}");
    b.screenshot("start-done");
}
