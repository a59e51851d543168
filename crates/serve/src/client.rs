//! The smallest HTTP/1.1 client, for `pawl dashboard` asking the local daemon for a link: one
//! POST over a loopback TCP connection, the answer read to its end.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::Duration;

use crate::ServeError;

pub fn post(url: &str, path: &str, token: &str) -> Result<String, ServeError> {
    let host = url
        .strip_prefix("http://")
        .ok_or_else(|| ServeError::Other(format!("unexpected daemon url {url}")))?;
    let io =
        |e: std::io::Error| ServeError::Other(format!("cannot reach pawl serve at {url}: {e}"));
    let mut s = TcpStream::connect(host).map_err(io)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(io)?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .map_err(io)?;
    let mut out = String::new();
    s.read_to_string(&mut out).map_err(io)?;
    let (head, body) = out
        .split_once("\r\n\r\n")
        .ok_or_else(|| ServeError::Other(format!("bad answer from {url}")))?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(ServeError::Other(format!(
            "pawl serve refused: {}",
            head.lines().next().unwrap_or_default()
        )));
    }
    Ok(body.to_string())
}
