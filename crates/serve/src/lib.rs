//! pawl-serve: `pawl serve`, one daemon per machine user that watches the runs of every
//! repository where pawl has run, serves them as a JSON API under `/api/v1` with live event
//! streams (SSE), and a dashboard embedded in the binary.
//!
//! The daemon observes; runs stay their own processes. It writes only requests — stop,
//! resume with added budget, cancel, answers — through the store's typed methods, each a
//! compare-and-set on the run's version, each recorded with `"origin": "dashboard"` — and it
//! starts a run (`start.rs`): a detached `pawl run` driver, in a served repository, with the
//! environment that repository joined with, asked for only by the browser's own session. Security (`auth.rs`): loopback unless `public`, a random token per
//! start, Host and Origin checked, a one-time link that gives the browser a session of its own
//! (a cookie and a CSRF key, never the token).
//!
//! Not here: reading `$HOME` or the environment (the CLI passes the state directory and the
//! key), printing.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use serde::Serialize;

pub mod api;
mod assets;
pub mod auth;
pub mod lock;
pub mod monitor;
pub mod notify;
mod openapi;
pub mod registry;
pub mod repos;
pub mod start;
mod stream;
pub use stream::WATCHER;

/// Errors of the daemon.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}", match .0 {
        Some(r) => format!("pawl serve is already running at {} (pid {})", r.url, r.pid),
        None => "pawl serve is already running (it is starting: see serve.json in the pawl state directory)".to_string(),
    })]
    AlreadyRunning(Option<lock::Running>),
    #[error(
        "{0} is not a loopback address: serving other machines needs --public as well (the API then travels unencrypted; see docs/serve.md)"
    )]
    NotLoopback(IpAddr),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

impl ServeError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> ServeError {
        ServeError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// How the daemon starts (the CLI builds it from its flags and the user's state).
#[derive(Debug, Clone)]
pub struct Options {
    pub bind: IpAddr,
    /// 0: any free port.
    pub port: u16,
    /// Allows a non-loopback `bind`.
    pub public: bool,
    /// The user's pawl state directory: the lock, the token, the registry.
    pub state_dir: PathBuf,
    /// The key the stores are signed with (`None`: stores are read, never written).
    pub key: Option<[u8; 32]>,
    /// Host names accepted besides the bound address and localhost (`--allow-host`).
    pub allow_hosts: Vec<String>,
    /// How often stores and the registry are looked at.
    pub poll: Duration,
    pub notify: notify::Notify,
    /// How long a browser's dashboard session lasts ([`auth::SESSION_TTL`]).
    pub session_ttl: Duration,
    /// How long a one-time dashboard link may wait to be opened ([`auth::LINK_TTL`]).
    pub link_ttl: Duration,
    /// The `pawl` program a run started from the dashboard is driven by (`None`: the dashboard
    /// starts no runs).
    pub program: Option<PathBuf>,
}

impl Options {
    pub fn new(state_dir: PathBuf, key: Option<[u8; 32]>) -> Options {
        Options {
            bind: IpAddr::from([127, 0, 0, 1]),
            port: 0,
            public: false,
            state_dir,
            key,
            allow_hosts: Vec::new(),
            poll: Duration::from_millis(250),
            notify: notify::Notify::default(),
            session_ttl: auth::SESSION_TTL,
            link_ttl: auth::LINK_TTL,
            program: None,
        }
    }
}

/// What `pawl serve --json` prints once the daemon listens.
#[derive(Debug, Clone, Serialize)]
pub struct Ready {
    pub url: String,
    pub token_file: PathBuf,
    pub dashboard: String,
    pub pid: u32,
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub token: String,
    pub url: String,
    pub hosts: auth::Hosts,
    pub links: auth::Links,
    pub sessions: auth::Sessions,
    pub repos: repos::Repos,
    /// The runs started from the dashboard, followed until they exist.
    pub starts: start::Starts,
    pub program: Option<PathBuf>,
    pub bus: tokio::sync::broadcast::Sender<Arc<stream::Posted>>,
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// A daemon that holds the lock and listens, not yet serving.
pub struct Server {
    listener: tokio::net::TcpListener,
    state: AppState,
    ready: Ready,
    options: Options,
    _lock: lock::Lock,
}

impl Server {
    /// Takes the lock, listens, writes the token file (0600) and publishes where it is.
    pub async fn bind(options: Options) -> Result<Server, ServeError> {
        if !options.bind.is_loopback() && !options.public {
            return Err(ServeError::NotLoopback(options.bind));
        }
        let lock = lock::Lock::take(&options.state_dir)?;
        let addr = SocketAddr::new(options.bind, options.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let local = listener
            .local_addr()
            .map_err(|source| ServeError::Bind { addr, source })?;
        let token =
            auth::random_token().map_err(|e| ServeError::io(Path::new("/dev/urandom"), e))?;
        let token_file = options.state_dir.join("serve.token");
        write_private(&token_file, &format!("{token}\n"))?;
        let url = format!("http://{local}");
        let (bus, _) = tokio::sync::broadcast::channel(4096);
        let state = AppState(Arc::new(Inner {
            token,
            url: url.clone(),
            hosts: auth::Hosts::new(options.bind, local.port(), &options.allow_hosts),
            links: auth::Links::new(options.link_ttl),
            sessions: auth::Sessions::new(options.session_ttl),
            repos: repos::Repos::new(options.state_dir.clone(), options.key),
            starts: start::Starts::default(),
            program: options.program.clone(),
            bus,
        }));
        let code = state
            .links
            .issue()
            .map_err(|e| ServeError::io(Path::new("/dev/urandom"), e))?;
        let ready = Ready {
            dashboard: format!("{url}/auth?code={code}"),
            url: url.clone(),
            token_file: token_file.clone(),
            pid: std::process::id(),
        };
        lock.publish(&lock::Running {
            url,
            pid: ready.pid,
            token_file,
        })?;
        Ok(Server {
            listener,
            state,
            ready,
            options,
            _lock: lock,
        })
    }

    pub fn ready(&self) -> &Ready {
        &self.ready
    }

    /// Serves until `shutdown` completes. Watching the stores runs on its own thread (SQLite
    /// is blocking) and ends with the server.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watcher = stream::spawn_watcher(
            self.state.clone(),
            self.options.poll,
            self.options.notify.clone(),
            stop.clone(),
        )
        .map_err(|e| ServeError::Other(format!("cannot start the watcher thread: {e}")))?;
        let app = router(self.state.clone());
        let served = axum::serve(self.listener, app)
            .with_graceful_shutdown(shutdown)
            .await
            .map_err(|e| ServeError::Other(format!("the server stopped: {e}")));
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = watcher.join();
        served
    }
}

/// Every route, behind the Host/Origin/token guard.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/run", get(assets::index))
        .route("/assets/{name}", get(assets::asset))
        .route("/auth", get(auth::redeem))
        .route("/api/v1/openapi.json", get(openapi::document))
        .route("/api/v1/links", post(api::new_link))
        .route("/api/v1/repos", get(api::list_repos))
        .route("/api/v1/runs", get(api::list_runs).post(start::start_run))
        .route("/api/v1/starts/{id}", get(start::start_status))
        .route("/api/v1/runs/{id}", get(api::get_run))
        .route("/api/v1/runs/{id}/iterations", get(api::iterations))
        .route("/api/v1/runs/{id}/events", get(api::events))
        .route("/api/v1/runs/{id}/events/stream", get(stream::run_stream))
        .route("/api/v1/runs/{id}/evidence", get(api::evidence))
        .route("/api/v1/runs/{id}/verdicts", get(api::verdicts))
        .route("/api/v1/runs/{id}/report", get(api::report))
        .route("/api/v1/runs/{id}/diff", get(api::diff))
        .route("/api/v1/runs/{id}/stop", post(api::stop))
        .route("/api/v1/runs/{id}/resume", post(api::resume))
        .route("/api/v1/runs/{id}/cancel", post(api::cancel))
        .route("/api/v1/runs/{id}/answer", post(api::answer))
        .route(
            "/api/v1/runs/{id}/questions/{question}",
            post(api::answer_question),
        )
        .route("/api/v1/events/stream", get(stream::all_stream))
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::guard,
        ))
        .with_state(state)
}

/// Writes a file only its owner can read (created 0600, then renamed over the old one).
pub(crate) fn write_private(path: &Path, text: &str) -> Result<(), ServeError> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| ServeError::io(&tmp, e))?;
    f.write_all(text.as_bytes())
        .map_err(|e| ServeError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| ServeError::io(path, e))
}

/// Asks the daemon that runs for this user for a new one-time dashboard link (`pawl dashboard`).
pub fn dashboard_link(state_dir: &Path) -> Result<String, ServeError> {
    let running = lock::running(state_dir).map_err(|_| {
        ServeError::Other(
            "no pawl serve is running for this user: start one with `pawl serve`".into(),
        )
    })?;
    let token = std::fs::read_to_string(&running.token_file)
        .map_err(|e| ServeError::io(&running.token_file, e))?;
    let body = client::post(&running.url, "/api/v1/links", token.trim())?;
    let v: serde_json::Value =
        serde_json::from_str(&body).map_err(|e| ServeError::Other(format!("{e}: {body}")))?;
    v["dashboard"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| ServeError::Other(format!("unexpected answer: {body}")))
}

/// Writes a page that sends the browser on to `link` (`dashboard.html` in the state directory,
/// created 0600): `pawl dashboard` opens the browser with this file's path, so the one-time
/// link is on no process's command line (`/proc/*/cmdline` is readable by every user).
pub fn write_redirect_page(state_dir: &Path, link: &str) -> Result<PathBuf, ServeError> {
    let attr: String = link
        .chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '"' => "&quot;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            c => c.to_string(),
        })
        .collect();
    let page = format!(
        "<!doctype html>\n<meta charset=\"utf-8\">\n<meta name=\"referrer\" content=\"no-referrer\">\n<meta http-equiv=\"refresh\" content=\"0;url={attr}\">\n<title>pawl dashboard</title>\n<p>Opening the dashboard… <a href=\"{attr}\">open it</a> (the link works once).</p>\n"
    );
    let path = state_dir.join("dashboard.html");
    write_private(&path, &page)?;
    Ok(path)
}

mod client;
