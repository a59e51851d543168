//! A daemon in a thread of its own, temporary repositories with signed stores, and a small
//! HTTP client.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pawl_core::model::Driver;
use pawl_core::record::{Run, RunSettings};
use pawl_serve::{Options, Ready, Server};
use pawl_store::{NewRun, Store};

pub const KEY: [u8; 32] = [7; 32];

pub struct Daemon {
    pub ready: Ready,
    pub token: String,
    pub state: tempfile::TempDir,
    pub repo: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A repository directory with a signed store.
pub fn make_repo(dir: &Path) -> Store {
    std::fs::create_dir_all(dir.join(".pawl")).unwrap();
    Store::open_keyed(&dir.join(".pawl/pawl.db"), KEY).unwrap()
}

pub fn new_run(store: &mut Store, goal: &str) -> Run {
    new_run_with(store, goal, RunSettings::default())
}

pub fn new_run_with(store: &mut Store, goal: &str, settings: RunSettings) -> Run {
    store
        .create_run(&NewRun {
            goal: goal.into(),
            driver: Driver::Headless,
            mode: None,
            settings,
            branch: None,
            pre_run_commit: None,
        })
        .unwrap()
}

pub fn start() -> Daemon {
    start_with(|_| {})
}

/// A daemon over a fresh state directory that serves one (empty) registered repository.
pub fn start_with(tune: impl FnOnce(&mut Options)) -> Daemon {
    let state = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    drop(make_repo(repo.path()));
    pawl_serve::registry::register(state.path(), repo.path()).unwrap();
    let mut options = Options::new(state.path().to_path_buf(), Some(KEY));
    options.poll = Duration::from_millis(50);
    tune(&mut options);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let server = match Server::bind(options).await {
                Ok(s) => s,
                Err(e) => {
                    ready_tx.send(Err(e.to_string())).unwrap();
                    return;
                }
            };
            ready_tx.send(Ok(server.ready().clone())).unwrap();
            server
                .run(async move {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap();
        });
    });
    let ready = ready_rx.recv().unwrap().unwrap();
    let token = std::fs::read_to_string(&ready.token_file)
        .unwrap()
        .trim()
        .to_string();
    Daemon {
        ready,
        token,
        state,
        repo,
        stop: Some(stop_tx),
        thread: Some(thread),
    }
}

impl Daemon {
    pub fn host(&self) -> String {
        self.ready.url.trim_start_matches("http://").to_string()
    }

    pub fn store(&self) -> Store {
        Store::open_keyed(&self.repo.path().join(".pawl/pawl.db"), KEY).unwrap()
    }

    pub fn repo_path(&self) -> PathBuf {
        self.repo.path().to_path_buf()
    }

    /// A request with the token and the right Host.
    pub fn get(&self, path: &str) -> Resp {
        self.send(
            "GET",
            path,
            &[("Authorization", &format!("Bearer {}", self.token))],
            None,
        )
    }

    pub fn post(&self, path: &str, if_match: Option<&str>, body: Option<&str>) -> Resp {
        let auth = format!("Bearer {}", self.token);
        let mut headers = vec![("Authorization", auth.as_str())];
        if let Some(m) = if_match {
            headers.push(("If-Match", m));
        }
        if body.is_some() {
            headers.push(("Content-Type", "application/json"));
        }
        self.send("POST", path, &headers, body)
    }

    /// A request with exactly these headers (and the right Host unless one is given).
    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> Resp {
        let mut s = TcpStream::connect(self.host()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {}\r\n", self.host()));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        let body = body.unwrap_or("");
        req.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ));
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        Resp::parse(&String::from_utf8_lossy(&raw))
    }

    /// Opens an event stream; `headers` come after the token.
    pub fn stream(&self, path: &str, headers: &[(&str, &str)]) -> Stream {
        let auth = format!("Bearer {}", self.token);
        let mut all = vec![("Authorization", auth.as_str())];
        all.extend_from_slice(headers);
        self.stream_as(path, &all)
    }

    /// Opens an event stream with these headers only (no token unless given).
    pub fn stream_as(&self, path: &str, headers: &[(&str, &str)]) -> Stream {
        let mut s = TcpStream::connect(self.host()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut req = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n",
            self.host(),
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let mut reader = BufReader::new(s);
        let mut status = String::new();
        reader.read_line(&mut status).unwrap();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        Stream { reader, status }
    }
}

pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    fn parse(raw: &str) -> Resp {
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect::<Vec<_>>();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let body = if chunked {
            dechunk(body)
        } else {
            body.to_string()
        };
        Resp {
            status,
            headers,
            body,
        }
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// An open event stream (chunked SSE read line by line).
pub struct Stream {
    reader: BufReader<TcpStream>,
    pub status: String,
}

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct Sse {
    pub id: String,
    pub data: serde_json::Value,
}

impl Stream {
    /// The next event (comments and keep-alives skipped; chunk sizes skipped).
    pub fn next_event(&mut self) -> Sse {
        let mut id = String::new();
        let mut data = String::new();
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).unwrap();
            assert!(n > 0, "the stream ended");
            let line = line.trim_end_matches(['\r', '\n']);
            if let Some(v) = line.strip_prefix("id:") {
                id = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim());
            } else if line.is_empty() && !data.is_empty() {
                return Sse {
                    id,
                    data: serde_json::from_str(&data).unwrap(),
                };
            }
        }
    }
}

/// Waits for `cond`, polling, within a generous bound.
pub fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if cond() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("timed out waiting for {what}");
}
