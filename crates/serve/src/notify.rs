//! Telling the user: a desktop notification (`notify-send`, when the CLI found it) and a
//! webhook (`[notify] webhook`: a JSON POST to a plain `http://` URL). Each notice follows the
//! `[notify]` of the repository its run belongs to (read when the notice is sent, so an edit
//! takes effect without a restart; `PAWL_NOTIFY_*` apply over it), unless `pawl serve
//! --webhook` names one webhook for all. Each notice is sent on its own thread with a timeout,
//! so a slow receiver never holds the watcher up; a failure is dropped (it is a courtesy, the
//! dashboard and the store keep the truth).

use std::io::{Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::monitor::Notice;

const TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Default)]
pub struct Notify {
    /// The `notify-send` program, if there is one.
    pub desktop: Option<PathBuf>,
    /// `http://host:port/path` for every repository's notices (`pawl serve --webhook`); none:
    /// each repository's own `[notify] webhook`.
    pub webhook: Option<String>,
}

/// Where the notices of one repository go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Targets {
    pub desktop: Option<PathBuf>,
    pub webhook: Option<String>,
}

/// The daemon's log is its stderr (it runs in the foreground, or under a service manager).
#[allow(clippy::print_stderr)]
fn warn(text: &str) {
    eprintln!("pawl serve: {text}");
}

/// A repository's `[notify]` (its `pawl.toml`, then `PAWL_NOTIFY_*`); the defaults when it has
/// no file, and the defaults with a warning on stderr when the file does not read.
pub fn repo_config(root: &Path) -> pawl_core::config::NotifyConfig {
    let path = root.join("pawl.toml");
    let mut loader = pawl_core::config::Loader::new();
    if let Ok(text) = std::fs::read_to_string(&path) {
        match loader.file("pawl.toml", &text) {
            Ok(l) => loader = l,
            Err(e) => {
                warn(&format!(
                    "{}: {e}; its [notify] is not used",
                    path.display()
                ));
                loader = pawl_core::config::Loader::new();
            }
        }
    }
    match loader.env(std::env::vars()).and_then(|l| l.finish()) {
        Ok(eff) => eff.config.notify,
        Err(e) => {
            warn(&format!("PAWL_NOTIFY_*: {e}"));
            pawl_core::config::NotifyConfig::default()
        }
    }
}

impl Notify {
    /// Where a notice of a run in the repository at `root` goes.
    pub fn targets(&self, root: &Path) -> Targets {
        let config = repo_config(root);
        let webhook = match &self.webhook {
            Some(w) => Some(w.clone()),
            None if config.webhook.is_empty() => None,
            None if !config.webhook.starts_with("http://") => {
                warn(&format!(
                    "{}: [notify] webhook must be a plain http:// URL, got `{}`; not sent",
                    root.display(),
                    config.webhook
                ));
                None
            }
            None => Some(config.webhook),
        };
        Targets {
            desktop: self.desktop.clone().filter(|_| config.desktop),
            webhook,
        }
    }

    pub fn send(&self, notice: &Notice) {
        let targets = self.targets(Path::new(&notice.repo));
        if let Some(program) = targets.desktop {
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
        if let Some(url) = targets.webhook {
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
