//! A minimal HTTP/1.1 client over `TcpStream`, enough to poke the mock without a client crate.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// What came back: status, raw header block, body bytes as text, and whether the read ended in an
/// error or timeout (a cut or stalled stream) rather than a clean close.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub head: String,
    pub body: String,
    pub read_error: Option<std::io::ErrorKind>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<String> {
        let prefix = format!("{}:", name.to_ascii_lowercase());
        self.head
            .lines()
            .find(|line| line.to_ascii_lowercase().starts_with(&prefix))
            .map(|line| line[prefix.len()..].trim().to_owned())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|err| panic!("{err}: {}", self.body))
    }
}

/// Sends one request with `Connection: close` and reads until close, error or `timeout`.
pub fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
    timeout: Duration,
) -> RawResponse {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(timeout)).unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();

    let mut raw = Vec::new();
    let mut buf = [0_u8; 8192];
    let read_error = loop {
        match stream.read(&mut buf) {
            Ok(0) => break None,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(err) => break Some(err.kind()),
        }
    };
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text.as_str(), ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    RawResponse {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
        read_error,
    }
}

/// POSTs JSON and reads the answer (10 s timeout).
pub fn post_json(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &serde_json::Value,
) -> RawResponse {
    let mut all = vec![("content-type", "application/json")];
    all.extend_from_slice(headers);
    send(
        addr,
        "POST",
        path,
        &all,
        &body.to_string(),
        Duration::from_secs(10),
    )
}

/// The `data:` payloads of an SSE body (chunked framing lines are skipped as non-JSON).
pub fn sse_data(body: &str) -> Vec<serde_json::Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect()
}
