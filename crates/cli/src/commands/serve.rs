//! `pawl serve [--bind ADDR] [--port N] [--public] [--add DIR]... [--json]`: the daemon — one per
//! machine user — that serves every repository where pawl has run: the API, live events and
//! the dashboard (pawl-serve; docs/serve.md). `--add DIR` registers a repository, and while a
//! daemon already runs, that is all it does (the daemon follows the registry).
//!
//! `pawl dashboard`: a new one-time link to the running daemon's dashboard, opened in the
//! browser through a page only the user can read (the link is on no command line).

use std::io::Write as _;
use std::net::IpAddr;
use std::path::PathBuf;

use clap::Args;
use pawl_core::ExitCode;
use pawl_serve::{Options, ServeError};

use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on; one that is not loopback needs --public too.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: IpAddr,
    /// The port (0: any free one; --json says which).
    #[arg(long, default_value_t = 7295, value_name = "N")]
    pub port: u16,
    /// Serve other machines: the API travels without TLS (see docs/serve.md).
    #[arg(long)]
    pub public: bool,
    /// A host name the server also answers to besides its address and localhost.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Register a repository with the daemon (it need not be running), or a shared store
    /// (`postgres://…`: every run of the fleet).
    #[arg(long, value_name = "DIR|URL")]
    pub add: Vec<PathBuf>,
    /// POST every repository's notices here (a run ended, stalled or waits on you); without it,
    /// each run's repository's own `[notify] webhook`.
    #[arg(long, value_name = "URL")]
    pub webhook: Option<String>,
}

#[derive(Debug, Args)]
pub struct DashboardArgs {
    /// Print the link instead of opening it in the browser.
    #[arg(long)]
    pub print: bool,
}

/// The checked request: the daemon's options and the repositories to add.
struct Plan {
    options: Options,
    add: Vec<PathBuf>,
}

fn plan(args: &ServeArgs, dir: Option<&std::path::Path>) -> CliResult<Plan> {
    let state = crate::state::user_state_dir().ok_or_else(|| {
        CliError::Failed(
            "pawl serve needs a user state directory: set HOME or XDG_STATE_HOME".into(),
        )
    })?;
    if !args.bind.is_loopback() && !args.public {
        return Err(CliError::Usage(format!(
            "{} is not a loopback address: add --public to serve other machines (without TLS: see docs/serve.md)",
            args.bind
        )));
    }
    let mut add = Vec::new();
    for d in &args.add {
        // A shared store (a fleet's, docs/fleet.md): every run in it is served.
        if pawl_store::Location::parse(&d.to_string_lossy()).is_shared() {
            add.push(d.clone());
            continue;
        }
        let abs = d
            .canonicalize()
            .map_err(CliError::io(format!("cannot add {}", d.display())))?;
        // A SQLite store file many clones share (`[store] url` a path): every run in it.
        if abs.is_file() {
            let mut head = [0u8; 16];
            let sqlite = std::fs::File::open(&abs)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
                .is_ok_and(|()| &head == b"SQLite format 3\0");
            if !sqlite {
                return Err(CliError::Usage(format!(
                    "{} is neither a directory nor a pawl store (a SQLite file)",
                    d.display()
                )));
            }
            add.push(abs);
            continue;
        }
        if !abs.is_dir() {
            return Err(CliError::Usage(format!(
                "{} is not a directory",
                d.display()
            )));
        }
        add.push(abs);
    }
    let mut options = Options::new(state, crate::state::evidence_key());
    options.bind = args.bind;
    options.port = args.port;
    options.public = args.public;
    options.allow_hosts = args.allow_host.clone();
    let cwd = match dir {
        Some(d) => d.to_path_buf(),
        None => {
            std::env::current_dir().map_err(CliError::io("cannot read the current directory"))?
        }
    };
    let root = crate::ctx::find_repo_root(&cwd).unwrap_or(cwd);
    refuse_inside_step(&root)?;
    // Notices follow the `[notify]` of each run's own repository (pawl_serve::notify);
    // `--webhook` sends every repository's to one place.
    if let Some(webhook) = &args.webhook
        && !webhook.starts_with("http://")
    {
        return Err(CliError::Usage(format!(
            "the webhook must be a plain http:// URL (pawl sends no TLS), got `{webhook}`"
        )));
    }
    options.notify.webhook = args.webhook.clone().filter(|w| !w.is_empty());
    options.notify.desktop =
        std::env::var_os("PATH").and_then(|p| crate::project::which("notify-send", &p));
    // A run started from the dashboard is driven by this same pawl.
    options.program = std::env::current_exe().ok();
    Ok(Plan { options, add })
}

fn line(text: &str) -> CliResult {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .map_err(CliError::io("cannot write to stdout"))
}

pub fn run(args: &ServeArgs, dir: Option<&std::path::Path>, json: bool) -> CliResult<ExitCode> {
    let plan = plan(args, dir)?;
    for repo in &plan.add {
        let text = repo.to_string_lossy();
        let shared = pawl_store::Location::parse(&text).is_shared() || repo.is_file();
        let added = if shared {
            pawl_serve::registry::register_store(&plan.options.state_dir, &text)
        } else {
            pawl_serve::registry::register(&plan.options.state_dir, repo)
        }
        .map_err(|e| CliError::Failed(e.to_string()))?;
        // `--add` records (again) the environment the dashboard's runs there get: this shell's.
        if !shared {
            crate::state::record_environment(&plan.options.state_dir, repo, true)?;
        }
        if !json {
            line(&format!(
                "{} {}",
                if added { "Added" } else { "Already served:" },
                if shared {
                    pawl_store::db::redact(&text)
                } else {
                    repo.display().to_string()
                }
            ))?;
        }
    }
    if args.public && !json {
        let _ = writeln!(
            std::io::stderr(),
            "pawl: WARNING: serving on {} for other machines WITHOUT TLS: the token and every answer travel in clear text. Put a TLS proxy in front, or use an SSH tunnel instead (docs/serve.md).",
            args.bind
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(CliError::io("cannot start the server's runtime"))?;
    let added = !plan.add.is_empty();
    runtime.block_on(async move {
        let server = match pawl_serve::Server::bind(plan.options).await {
            Ok(s) => s,
            Err(ServeError::AlreadyRunning(Some(r))) if added => {
                if json {
                    let shown: Vec<String> = plan
                        .add
                        .iter()
                        .map(|a| pawl_store::db::redact(&a.to_string_lossy()))
                        .collect();
                    line(&serde_json::json!({"added": shown, "url": r.url, "pid": r.pid}).to_string())?;
                } else {
                    line(&format!("pawl serve at {} (pid {}) follows the registry: nothing else to do.", r.url, r.pid))?;
                }
                return Ok(ExitCode::Done);
            }
            Err(e) => return Err(CliError::Failed(e.to_string())),
        };
        let ready = server.ready().clone();
        if json {
            line(&serde_json::to_string(&ready).map_err(|e| CliError::Failed(e.to_string()))?)?;
        } else {
            line(&format!(
                "pawl serve: {}\n  token:     {}\n  dashboard: {}   (opens once; `pawl dashboard` makes another)\n  pid:       {}\nCtrl-C stops it.",
                ready.url,
                ready.token_file.display(),
                ready.dashboard,
                ready.pid
            ))?;
        }
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let tx = std::sync::Mutex::new(Some(tx));
        let _ = ctrlc::set_handler(move || {
            if let Some(tx) = tx.lock().ok().and_then(|mut t| t.take()) {
                let _ = tx.send(());
            }
        });
        server
            .run(async move {
                let _ = rx.await;
            })
            .await
            .map_err(|e| CliError::Failed(e.to_string()))?;
        Ok(ExitCode::Done)
    })
}

/// The daemon and its links are the user's: an agent step gets neither (they run before the
/// usual check of the step, which needs a repository).
fn refuse_inside_step(root: &std::path::Path) -> CliResult {
    if crate::sandbox::inside_step(root) {
        return Err(CliError::Failed(
            "pawl serve and pawl dashboard are the user's: not from inside an agent step".into(),
        ));
    }
    Ok(())
}

pub fn dashboard(args: &DashboardArgs, json: bool) -> CliResult<ExitCode> {
    if let Some(root) = std::env::current_dir()
        .ok()
        .and_then(|d| crate::ctx::find_repo_root(&d))
    {
        refuse_inside_step(&root)?;
    }
    let state = crate::state::user_state_dir().ok_or_else(|| {
        CliError::Failed("no user state directory: set HOME or XDG_STATE_HOME".into())
    })?;
    let link = pawl_serve::dashboard_link(&state).map_err(|e| CliError::Failed(e.to_string()))?;
    if json {
        line(&serde_json::json!({"dashboard": link}).to_string())?;
        return Ok(ExitCode::Done);
    }
    if !args.print {
        match browser() {
            Some(program) => {
                // The browser gets a page only the user can read, never the link itself: a
                // command line is readable by every user in /proc.
                let page = pawl_serve::write_redirect_page(&state, &link)
                    .map_err(|e| CliError::Failed(e.to_string()))?;
                let opened = pawl_process::Command::new(&program)
                    .arg(&page)
                    .timeout(std::time::Duration::from_secs(20))
                    .run();
                if opened.as_ref().is_ok_and(|o| o.success()) {
                    line(&format!(
                        "Opened the dashboard in your browser ({}).",
                        program.display()
                    ))?;
                    return Ok(ExitCode::Done);
                }
                line(&format!(
                    "{} could not open the dashboard; open this link yourself:",
                    program.display()
                ))?;
            }
            None => line("No browser to open it with (set BROWSER); open this link yourself:")?,
        }
    }
    line(&format!("{link}\n(opens once)"))?;
    Ok(ExitCode::Done)
}

/// The program that opens a link in the user's browser: `$BROWSER` (its first entry), else
/// the desktop's opener when there is a desktop (`xdg-open`; `open` on macOS).
fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(b) = std::env::var_os("BROWSER").filter(|b| !b.is_empty()) {
        let first = b
            .to_string_lossy()
            .split(':')
            .next()
            .unwrap_or_default()
            .to_string();
        let p = PathBuf::from(&first);
        return if p.is_absolute() {
            Some(p)
        } else {
            crate::project::which(&first, &path)
        };
    }
    if cfg!(target_os = "macos") {
        return crate::project::which("open", &path);
    }
    let desktop = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
    if desktop {
        crate::project::which("xdg-open", &path)
    } else {
        None
    }
}
