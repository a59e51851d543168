//! Telling the user: a desktop notification (`notify-send`, when the CLI found it) and a
//! webhook (`[notify] webhook`: a JSON POST to a plain `http://` URL). Each notice is sent on
//! its own thread with a timeout, so a slow receiver never holds the watcher up; a failure is
//! dropped (it is a courtesy, the dashboard and the store keep the truth).

use std::io::{Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::path::PathBuf;
use std::time::Duration;

use crate::monitor::Notice;

const TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Default)]
pub struct Notify {
    /// The `notify-send` program, if there is one.
    pub desktop: Option<PathBuf>,
    /// `http://host:port/path`.
    pub webhook: Option<String>,
}

impl Notify {
    pub fn send(&self, notice: &Notice) {
        if let Some(program) = self.desktop.clone() {
            let n = notice.clone();
            std::thread::spawn(move || {
                let _ = pawl_process::Command::new(program)
                    .arg("--app-name=pawl")
                    .arg(format!("pawl: run {}", n.run))
                    .arg(&n.message)
                    .timeout(TIMEOUT)
                    .run();
            });
        }
        if let Some(url) = self.webhook.clone() {
            let n = notice.clone();
            std::thread::spawn(move || {
                let _ = post_json(&url, &serde_json::to_string(&n).unwrap_or_default());
            });
        }
    }
}

/// POSTs `body` to a plain-HTTP URL; the status line of the answer.
pub fn post_json(url: &str, body: &str) -> std::io::Result<String> {
    let bad = |what: &str| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{what}: {url}"))
    };
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| bad("only http:// webhooks are supported"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let addr = if authority.contains(':') {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let target = addr
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| bad("cannot resolve"))?;
    let mut s = TcpStream::connect_timeout(&target, TIMEOUT)?;
    s.set_read_timeout(Some(TIMEOUT))?;
    s.set_write_timeout(Some(TIMEOUT))?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nUser-Agent: pawl-serve\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    Ok(answer.lines().next().unwrap_or_default().to_string())
}
