//! What every command needs: where the repository is, the effective configuration, the store,
//! and where to write.

use std::io::Write;
use std::path::{Path, PathBuf};

use pawl_core::config::{Effective, Loader};
use pawl_core::record::Run;
use pawl_store::Store;
use serde::Serialize;

use crate::error::{CliError, CliResult};

/// The state directory inside a repository.
pub use pawl_engine::STATE_DIR;
pub const CONFIG_FILE: &str = "pawl.toml";

pub struct Ctx {
    /// The repository root (the directory holding `.git`).
    pub root: PathBuf,
    pub json: bool,
    pub run_flag: Option<String>,
    /// `--verbose`: stream the agent's messages and tool calls.
    pub verbose: bool,
    /// `pawl run --yes`: proceed on the goal as stated, past the spec gate.
    pub proceed_as_stated: bool,
    /// Which requests a sandboxed step leaves in its mailbox are carried out: the dispatch's
    /// (`commands::mail_check`, which knows the whole command line); none by default.
    pub mail_check: MailCheck,
    out: std::io::Stdout,
}

/// Whether an argument list a step left in its mailbox is a reporting verb pawl carries out
/// (`Err`: why not).
pub type MailCheck = fn(&[String]) -> Result<(), String>;

/// The [`MailCheck`] of a context nobody gave one: every request is refused.
fn refuse_mail(args: &[String]) -> Result<(), String> {
    Err(format!(
        "`pawl {}` is not accepted from a step",
        args.join(" ")
    ))
}

impl Ctx {
    pub fn new(dir: Option<&Path>, json: bool, run_flag: Option<String>) -> CliResult<Ctx> {
        let start = match dir {
            Some(d) => d.to_path_buf(),
            None => std::env::current_dir()
                .map_err(CliError::io("cannot read the current directory"))?,
        };
        let root = find_repo_root(&start).ok_or_else(|| {
            CliError::Failed(format!(
                "{} is not inside a git repository: pawl works in one (run `git init` first)",
                start.display()
            ))
        })?;
        Ok(Ctx {
            root,
            json,
            run_flag,
            verbose: false,
            proceed_as_stated: false,
            mail_check: refuse_mail,
            out: std::io::stdout(),
        })
    }

    /// A context for another repository root (e.g. the demo's), quiet and human.
    pub fn at(root: PathBuf) -> Ctx {
        Ctx {
            root,
            json: false,
            run_flag: None,
            verbose: false,
            proceed_as_stated: false,
            mail_check: refuse_mail,
            out: std::io::stdout(),
        }
    }

    pub fn state_dir(&self) -> PathBuf {
        self.root.join(STATE_DIR)
    }

    pub fn db_path(&self) -> PathBuf {
        self.state_dir().join("pawl.db")
    }

    /// Opens the store: the clone's own `.pawl/pawl.db` (the state directory must exist: `pawl
    /// init`), or the shared store `[store] url` / `PAWL_STORE_URL` names — then a fresh clone
    /// needs no `pawl init`: the state directory is created here. Either way the handle is
    /// scoped to this clone (host and path) and to the fleet `[store] fleet` names.
    pub fn store(&self) -> CliResult<Store> {
        let settings = self.store_settings()?;
        let mut store = if settings.url.is_empty() {
            if !self.state_dir().is_dir() {
                return Err(CliError::Failed(format!(
                    "no pawl state in {}: run `pawl init` first",
                    self.root.display()
                )));
            }
            crate::state::open_store(&self.db_path())?
        } else {
            // What `pawl init` would have made of the state directory (ignored by git, logs,
            // reports): a fleet job's fresh clone runs without it.
            crate::state::make_state_dir(self, &mut Vec::new(), &mut Vec::new())?;
            crate::state::open_store_at(&pawl_store::Location::parse(&settings.url))?
        };
        store.set_scope(pawl_store::Scope {
            clone: Some(crate::owner::clone_id(&self.root)),
            fleet: (!settings.fleet.is_empty()).then(|| settings.fleet.clone()),
        });
        Ok(store)
    }

    /// The shared store's URL (`[store] url` / `PAWL_STORE_URL`), when runs are kept outside the
    /// clone.
    pub fn store_url(&self) -> Option<String> {
        self.store_settings()
            .ok()
            .map(|s| s.url)
            .filter(|u| !u.is_empty())
    }

    /// Whether this clone's runs are kept in a store outside it (`[store] url`, a fleet's): what
    /// only the clone holds (a run's report and diff) is then published into the store when a
    /// run stops (`pawl_engine::publish`).
    pub fn store_elsewhere(&self) -> bool {
        self.store_settings().is_ok_and(|s| !s.url.is_empty())
    }

    /// Publishes what a stopped run left only in this clone into a store outside it, when the
    /// run did not yet (see [`Ctx::store_elsewhere`]); a failure is said, not fatal: the next
    /// `pawl report` or `pawl resume` here publishes it.
    pub fn publish_if_missing(&self, store: &mut Store, run_id: &str) -> CliResult {
        if !self.store_elsewhere() {
            return Ok(());
        }
        let clone = crate::owner::clone_id(&self.root);
        if let Err(e) = pawl_engine::publish::publish_if_missing(store, run_id, &self.root, &clone)
        {
            self.warn_unpublished(run_id, &e);
        }
        Ok(())
    }

    /// Publishes `report` of a run that just stopped into a store outside the clone (nothing
    /// when the store is the clone's own). See [`Ctx::publish_if_missing`] for a failure.
    pub fn publish(&self, store: &mut Store, report: &pawl_engine::report::Report) {
        if !self.store_elsewhere() {
            return;
        }
        if let Err(e) = pawl_engine::publish::publish(store, report, &self.root) {
            self.warn_unpublished(&report.run_id, &e);
        }
    }

    fn warn_unpublished(&self, run_id: &str, e: &dyn std::fmt::Display) {
        let _ = writeln!(
            std::io::stderr(),
            "pawl: warning: run {run_id}'s report and diff could not be kept in the store ({e}); `pawl report {run_id}` in this clone keeps them"
        );
    }

    /// `[store]`: from `PAWL_STORE_URL` / `PAWL_STORE_FLEET` when set (no file read), else the
    /// configuration.
    fn store_settings(&self) -> CliResult<pawl_core::config::StoreConfig> {
        let url = std::env::var("PAWL_STORE_URL").unwrap_or_default();
        let fleet = std::env::var("PAWL_STORE_FLEET").unwrap_or_default();
        if !url.is_empty() || !self.root.join(CONFIG_FILE).is_file() {
            return Ok(pawl_core::config::StoreConfig { url, fleet });
        }
        let text = std::fs::read_to_string(self.root.join(CONFIG_FILE)).unwrap_or_default();
        if !text.contains("[store]") {
            return Ok(pawl_core::config::StoreConfig { url, fleet });
        }
        Ok(Loader::new()
            .file(CONFIG_FILE, &text)?
            .env(std::env::vars())?
            .finish()?
            .config
            .store)
    }

    /// The run this command acts on (`--run` or the current one), which must still be open.
    pub fn open_run(&self, store: &Store) -> CliResult<Run> {
        Ok(store.resolve_open_run(self.run_flag.as_deref())?)
    }

    /// Loads the effective configuration, with command-line overrides applied last.
    /// Warnings (unknown keys) go to stderr.
    pub fn config(&self, flags: &[(&str, String, &str)]) -> CliResult<Effective> {
        let path = self.root.join(CONFIG_FILE);
        let mut loader = Loader::new();
        match std::fs::read_to_string(&path) {
            Ok(text) => loader = loader.file(CONFIG_FILE, &text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(CliError::Io {
                    context: format!("cannot read {}", path.display()),
                    source: e,
                });
            }
        }
        loader = loader.env(std::env::vars())?;
        for (key, value, flag) in flags {
            loader = loader.flag(key, value, flag)?;
        }
        let eff = loader.finish()?;
        for w in &eff.warnings {
            self.warn(&w.to_string());
        }
        Ok(eff)
    }

    /// Writes human output.
    pub fn say(&mut self, text: impl AsRef<str>) -> CliResult {
        let mut lock = self.out.lock();
        lock.write_all(text.as_ref().as_bytes())
            .map_err(CliError::io("cannot write to stdout"))?;
        if !text.as_ref().ends_with('\n') {
            lock.write_all(b"\n")
                .map_err(CliError::io("cannot write to stdout"))?;
        }
        lock.flush().map_err(CliError::io("cannot write to stdout"))
    }

    /// Writes one JSON document (pretty) or line (compact).
    pub fn json_out<T: Serialize>(&mut self, value: &T) -> CliResult {
        let text =
            serde_json::to_string_pretty(value).map_err(|e| CliError::Failed(e.to_string()))?;
        self.say(text)
    }

    pub fn json_line<T: Serialize>(&mut self, value: &T) -> CliResult {
        let text = serde_json::to_string(value).map_err(|e| CliError::Failed(e.to_string()))?;
        self.say(text)
    }

    /// Writes JSON when `--json`, else the human text.
    pub fn emit<T: Serialize>(&mut self, value: &T, human: impl FnOnce() -> String) -> CliResult {
        if self.json {
            self.json_out(value)
        } else {
            self.say(human())
        }
    }

    pub fn warn(&self, text: &str) {
        let _ = writeln!(std::io::stderr(), "pawl: warning: {text}");
    }
}

/// The nearest ancestor holding a `.git` git would accept: a file (worktrees, submodules) or a
/// directory with `HEAD` (as git does, an empty or partial `.git` is passed over — sandboxes
/// create empty ones as mount points).
pub fn find_repo_root(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let git = d.join(".git");
        if git.is_file() || git.join("HEAD").exists() {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}
