//! The builder for a child process and the code that turns it into a running, supervised group.
//!
//! Setters take `&mut self` like [`std::process::Command`], so a command can be built
//! conditionally and spawned more than once.

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::capture::{self, Capture, CaptureConfig, LineSink};
use crate::env::{Base, EnvSpec};
use crate::error::Error;
use crate::outcome::{Outcome, Stream};
use crate::running::Running;
use crate::sandbox::{self, Containment};
use crate::spawner;
use crate::supervise::{self, Event, Limits, Supervisor};
use crate::sys::{self, Signal};

/// What the child reads on stdin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Stdin {
    /// `/dev/null`: the child sees end of file at once and can never wait for a human.
    #[default]
    Null,
    /// These bytes, written on a helper thread, then the pipe is closed.
    Bytes(Vec<u8>),
}

/// A child process to run. See the crate documentation for what every child gets.
#[derive(Debug, Clone)]
pub struct Command {
    program: OsString,
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
    env: EnvSpec,
    stdin: Stdin,
    limits: Limits,
    kill_on_drop: bool,
    parent_death: Option<Signal>,
    log_file: Option<PathBuf>,
    capture: CaptureConfig,
    line_sink: Option<LineSink>,
    log_limit: Option<u64>,
    containment: Option<Containment>,
}

impl Command {
    /// Default size of each in-memory tail: enough for a failing test's report.
    pub const DEFAULT_TAIL_BYTES: usize = 64 * 1024;
    /// Default longest line delivered whole; agent JSONL events with big tool results fit.
    pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
    /// Default time between SIGTERM and SIGKILL.
    pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);
    /// Default time processes left in the group may keep the pipes open after the leader exits.
    pub const DEFAULT_LEAK_GRACE: Duration = Duration::from_millis(250);

    /// A command running `program` (looked up in `PATH` when it has no `/`). By default it
    /// inherits pawl's environment and working directory, reads `/dev/null`, has no time limits,
    /// is killed when its [`Running`] handle is dropped, and gets SIGKILL if pawl dies.
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Command {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            cwd: None,
            env: EnvSpec::default(),
            stdin: Stdin::Null,
            limits: Limits {
                timeout: None,
                idle_timeout: None,
                grace: Self::DEFAULT_GRACE,
                leak_grace: Self::DEFAULT_LEAK_GRACE,
            },
            kill_on_drop: true,
            parent_death: Some(Signal::Kill),
            log_file: None,
            capture: CaptureConfig {
                tail_bytes: Self::DEFAULT_TAIL_BYTES,
                max_line_bytes: Self::DEFAULT_MAX_LINE_BYTES,
                keep_stdout: false,
            },
            line_sink: None,
            log_limit: None,
            containment: None,
        }
    }

    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// The child's working directory.
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.cwd = Some(dir.as_ref().to_owned());
        self
    }

    /// Sets a variable (applied after the base environment, so it always wins).
    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Self {
        self.env.set(key.as_ref(), value.as_ref());
        self
    }

    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        for (key, value) in vars {
            self.env.set(key.as_ref(), value.as_ref());
        }
        self
    }

    /// Removes a variable from whatever the base provides.
    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Self {
        self.env.remove(key.as_ref());
        self
    }

    /// Starts from an empty environment: the child sees only what is set with [`Self::env`].
    pub fn env_clear(&mut self) -> &mut Self {
        self.env.base = Base::Empty;
        self
    }

    /// Starts from only these of pawl's own variables (those that are set), e.g.
    /// `["PATH", "HOME", "LANG"]`; [`Self::env`] adds to them.
    pub fn env_allow<I, S>(&mut self, names: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.env.base = Base::AllowList(names.into_iter().map(|n| n.as_ref().to_owned()).collect());
        self
    }

    /// Feeds these bytes on stdin, then closes it.
    pub fn stdin_bytes(&mut self, bytes: impl Into<Vec<u8>>) -> &mut Self {
        self.stdin = Stdin::Bytes(bytes.into());
        self
    }

    pub fn stdin(&mut self, stdin: Stdin) -> &mut Self {
        self.stdin = stdin;
        self
    }

    /// Stops the group when the run takes longer than this ([`crate::End::TimedOut`]).
    pub fn timeout(&mut self, timeout: Duration) -> &mut Self {
        self.limits.timeout = Some(timeout);
        self
    }

    /// Stops the group when neither stream produced a byte for this long
    /// ([`crate::End::IdleTimedOut`]).
    pub fn idle_timeout(&mut self, idle: Duration) -> &mut Self {
        self.limits.idle_timeout = Some(idle);
        self
    }

    /// Time between SIGTERM and SIGKILL when stopping the group.
    pub fn grace(&mut self, grace: Duration) -> &mut Self {
        self.limits.grace = grace;
        self
    }

    /// How long processes left in the group may hold the pipes open after the leader exited
    /// before they are killed (and the outcome marked `leaked`).
    pub fn leak_grace(&mut self, grace: Duration) -> &mut Self {
        self.limits.leak_grace = grace;
        self
    }

    /// Whether dropping the [`Running`] handle without waiting kills the group (default true).
    pub fn kill_on_drop(&mut self, kill: bool) -> &mut Self {
        self.kill_on_drop = kill;
        self
    }

    /// The signal the child receives if pawl dies (Linux only; default SIGKILL; `None` to
    /// disable). It reaches the direct child only; the group is handled by pawl while it lives.
    pub fn parent_death_signal(&mut self, signal: Option<Signal>) -> &mut Self {
        self.parent_death = signal;
        self
    }

    /// Tees both streams into one log file (created with its directories, truncated). The format
    /// is described in the crate's `capture` module: `# ` header/footer lines, then each output
    /// line prefixed by `out| ` or `err| ` in arrival order.
    pub fn log_file(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.log_file = Some(path.as_ref().to_owned());
        self
    }

    /// Caps the log file: it and its rotated predecessor (`<name>.1`) hold at most `bytes`
    /// together, the end of the output always kept and every cut stated in the log
    /// (`crate::capture`).
    pub fn log_limit(&mut self, bytes: u64) -> &mut Self {
        self.log_limit = Some(bytes);
        self
    }

    /// Size of each in-memory tail (per stream, and of the combined tail).
    pub fn tail_bytes(&mut self, bytes: usize) -> &mut Self {
        self.capture.tail_bytes = bytes;
        self
    }

    /// Longest line delivered whole; longer ones arrive in pieces marked [`Line::split`].
    pub fn max_line_bytes(&mut self, bytes: usize) -> &mut Self {
        self.capture.max_line_bytes = bytes;
        self
    }

    /// Keeps the complete stdout in [`crate::StreamOutput::full`], for helpers whose output is
    /// the result (git plumbing). Unbounded: not for gates or agents.
    pub fn capture_stdout(&mut self, keep: bool) -> &mut Self {
        self.capture.keep_stdout = keep;
        self
    }

    /// Delivers every line of both streams on this channel as it arrives. Lines of one stream
    /// keep their exact order; between the two streams the order is the order pawl read them,
    /// which matches the child's write order only for writes that are not simultaneous (two
    /// pipes cannot promise more). The sender is dropped when the run ends, so
    /// `for line in receiver` terminates. An unbounded channel (`mpsc::channel`) never makes the
    /// run wait for its consumer, at the cost of memory when the consumer is slow; a bounded one
    /// (`mpsc::sync_channel`) makes reading wait for the consumer (the child blocks on its full
    /// pipe), so memory stays flat whatever the output — then the consumer must keep receiving
    /// until the channel closes. Waiting for the consumer never counts as the child being idle.
    pub fn line_sink(&mut self, sink: impl Into<LineSink>) -> &mut Self {
        self.line_sink = Some(sink.into());
        self
    }

    /// Runs the child through the step launcher ([`crate::sandbox`]): every process it starts
    /// ends with it, and the sandbox, if the containment has one, applies to all of them. The
    /// program is resolved in `PATH` (the child's, when it is set) before the launch, so a
    /// missing program is still [`Error::NotFound`].
    pub fn contain(&mut self, containment: Containment) -> &mut Self {
        self.containment = Some(containment);
        self
    }

    /// The containment set with [`Self::contain`].
    pub fn get_containment(&self) -> Option<&Containment> {
        self.containment.as_ref()
    }

    pub fn get_program(&self) -> &OsStr {
        &self.program
    }

    pub fn get_args(&self) -> impl Iterator<Item = &OsStr> {
        self.args.iter().map(OsString::as_os_str)
    }

    /// The explicit environment changes: `Some(value)` sets, `None` removes (applied after the
    /// base chosen with [`Self::env_clear`] / [`Self::env_allow`], or inherited).
    pub fn get_envs(&self) -> impl Iterator<Item = (&OsStr, Option<&OsStr>)> {
        self.env
            .overrides
            .iter()
            .map(|(k, v)| (k.as_os_str(), v.as_deref()))
    }

    /// The argv as one line for messages and logs, quoting arguments that need it.
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.get_args())
            .map(|part| quote(&part.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs to completion: [`Self::spawn`] then [`Running::wait`].
    pub fn run(&self) -> Result<Outcome, Error> {
        self.spawn()?.wait()
    }

    /// Starts the child **detached**: a session of its own (no group or terminal of pawl's),
    /// stdin `/dev/null`, stdout and stderr appended to `log` (created 0600), no parent-death
    /// signal, no supervisor and no time limits — it outlives the process that started it (the
    /// daemon starting a run's driver). The caller reaps it with [`std::process::Child::wait`]
    /// while it lives; the environment, working directory and program are this command's.
    /// Not for a contained command.
    pub fn spawn_detached(&self, log: &Path) -> Result<std::process::Child, Error> {
        use std::os::unix::fs::OpenOptionsExt as _;
        let program = self.program.to_string_lossy().into_owned();
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(log)
            .map_err(|source| Error::Log {
                path: log.to_path_buf(),
                source,
            })?;
        let err = out.try_clone().map_err(|source| Error::Log {
            path: log.to_path_buf(),
            source,
        })?;
        let mut command = std::process::Command::new(&self.program);
        command.args(&self.args);
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        self.env.apply(&mut command);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        sys::new_session(&mut command);
        spawner::spawn(command).map_err(|e| classify(e, &program, self.cwd.as_deref()))
    }

    /// Starts the child and its supervisor; returns at once.
    pub fn spawn(&self) -> Result<Running, Error> {
        let program = self.program.to_string_lossy().into_owned();
        let mut command = match &self.containment {
            None => {
                let mut command = std::process::Command::new(&self.program);
                command.args(&self.args);
                command
            }
            Some(c) => {
                let resolved = self.resolve(&program)?;
                let mut command = std::process::Command::new(&c.launcher);
                command.args(sandbox::launcher_args(
                    &c.spec,
                    &resolved,
                    self.args.iter().cloned(),
                ));
                command
            }
        };
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        self.env.apply(&mut command);
        command
            .stdin(match self.stdin {
                Stdin::Null => Stdio::null(),
                Stdin::Bytes(_) => Stdio::piped(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Own group: the whole tree can be signalled at once, and a Ctrl-C aimed at pawl's
            // terminal group does not hit children behind pawl's back.
            .process_group(0);
        if let Some(signal) = self.parent_death {
            sys::set_parent_death_signal(&mut command, signal);
        }

        let log = match &self.log_file {
            Some(path) => {
                let header = format!(
                    "pawl-process log\nargv: {}\ncwd: {}",
                    self.command_line(),
                    self.cwd
                        .as_deref()
                        .map_or_else(|| ".".to_owned(), |c| c.display().to_string())
                );
                Some(
                    capture::open_log(path, &header, self.log_limit).map_err(|source| {
                        Error::Log {
                            path: path.clone(),
                            source,
                        }
                    })?,
                )
            }
            None => None,
        };

        let started = Instant::now();
        let mut child = spawner::spawn(command).map_err(|err| match &self.containment {
            Some(c) => classify(err, &c.launcher.to_string_lossy(), self.cwd.as_deref()),
            None => classify(err, &program, self.cwd.as_deref()),
        })?;
        let pgid = child.id();
        let record = self
            .containment
            .as_ref()
            .and_then(|c| c.record_dir.as_deref())
            .and_then(|dir| sandbox::record(dir, pgid));
        let (events_tx, events_rx) = mpsc::channel::<Event>();
        let credit = supervise::Credit::default();

        // From here on a failure must not leave the group running.
        let fail = |err: io::Error| {
            let _ = sys::signal_group(pgid, Signal::Kill);
            Error::Thread(err)
        };

        if let (Stdin::Bytes(bytes), Some(mut pipe)) = (&self.stdin, child.stdin.take()) {
            let bytes = bytes.clone();
            std::thread::Builder::new()
                .name(format!("pawl-stdin-{pgid}"))
                .spawn(move || {
                    // A child that exits without reading everything closes the pipe: EPIPE is
                    // its choice, not our error. Dropping `pipe` closes the child's stdin.
                    let _ = pipe.write_all(&bytes);
                })
                .map_err(fail)?;
        }
        for (stream, pipe) in [
            (
                Stream::Stdout,
                child
                    .stdout
                    .take()
                    .map(|p| Box::new(p) as Box<dyn io::Read + Send>),
            ),
            (
                Stream::Stderr,
                child
                    .stderr
                    .take()
                    .map(|p| Box::new(p) as Box<dyn io::Read + Send>),
            ),
        ] {
            let events = events_tx.clone();
            let credit = credit.clone();
            match pipe {
                Some(pipe) => {
                    std::thread::Builder::new()
                        .name(format!("pawl-{}-{pgid}", stream_name(stream)))
                        .spawn(move || supervise::pump(pipe, stream, events, credit))
                        .map_err(fail)?;
                }
                None => {
                    let _ = events.send(Event::Eof(stream));
                }
            }
        }
        let waiter_events = events_tx.clone();
        std::thread::Builder::new()
            .name(format!("pawl-wait-{pgid}"))
            .spawn(move || {
                // `wait4` rather than `child.wait()`: the same reaping, and the CPU time the
                // command used comes with it (written into its log).
                let event = match sys::wait_with_cpu(child.id()) {
                    Ok((status, cpu)) => Event::Exited(Ok(status), Some(cpu)),
                    Err(e) => Event::Exited(Err(e), None),
                };
                let _ = waiter_events.send(event);
            })
            .map_err(fail)?;

        let finished = Arc::new(AtomicBool::new(false));
        let supervisor = Supervisor {
            pgid,
            started,
            events: events_rx,
            capture: Capture::new(self.capture.clone(), log, self.line_sink.clone()),
            limits: self.limits,
            finished: Arc::clone(&finished),
            credit,
        };
        let handle = std::thread::Builder::new()
            .name(format!("pawl-supervise-{pgid}"))
            .spawn(move || {
                let outcome = supervisor.run();
                if let Some(path) = record {
                    let _ = std::fs::remove_file(path);
                }
                outcome
            })
            .map_err(fail)?;

        Ok(Running::new(
            pgid,
            program,
            events_tx,
            handle,
            self.kill_on_drop,
            finished,
        ))
    }
}

impl Command {
    /// The program as the launcher must exec it: a path, checked to exist and be executable,
    /// found in the child's `PATH` (or pawl's) when the program has no `/`.
    fn resolve(&self, program: &str) -> Result<PathBuf, Error> {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::PermissionsExt;
        let candidate = |p: &Path| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.permissions().mode() & 0o111 != 0)
        };
        let absolute = |p: PathBuf| match (&self.cwd, p.is_relative()) {
            (Some(cwd), true) => cwd.join(p),
            _ => p,
        };
        if self.program.as_bytes().contains(&b'/') {
            let path = absolute(PathBuf::from(&self.program));
            return match candidate(&path) {
                Some(true) => Ok(path),
                Some(false) => Err(Error::PermissionDenied {
                    program: program.to_owned(),
                }),
                None => Err(Error::NotFound {
                    program: program.to_owned(),
                }),
            };
        }
        let path_var = match self.env.overrides.get(OsStr::new("PATH")) {
            Some(value) => value.clone(),
            None => match &self.env.base {
                Base::Empty => None,
                Base::AllowList(names) if !names.iter().any(|n| n == "PATH") => None,
                _ => std::env::var_os("PATH"),
            },
        }
        .unwrap_or_default();
        let mut denied = false;
        for dir in std::env::split_paths(&path_var) {
            let path = absolute(dir.join(&self.program));
            match candidate(&path) {
                Some(true) => return Ok(path),
                Some(false) => denied = true,
                None => {}
            }
        }
        Err(if denied {
            Error::PermissionDenied {
                program: program.to_owned(),
            }
        } else {
            Error::NotFound {
                program: program.to_owned(),
            }
        })
    }
}

/// The first absolute directory of `path` (a `PATH` value) where `program` is an executable
/// file: the one lookup of a program by name outside a spawn (detection, preflight, hooks,
/// doctor). Relative entries are skipped: they would resolve against whatever directory asks.
pub fn which(program: &str, path: &OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::split_paths(path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(program))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

fn stream_name(stream: Stream) -> &'static str {
    match stream {
        Stream::Stdout => "stdout",
        Stream::Stderr => "stderr",
    }
}

/// Turns a spawn error into the typed cause. ENOENT is ambiguous (missing program or missing
/// cwd), so the cwd is checked after the fact, which costs nothing on the success path.
fn classify(err: io::Error, program: &str, cwd: Option<&Path>) -> Error {
    if let Some(cwd) = cwd.filter(|cwd| !cwd.is_dir()) {
        return Error::CwdNotFound {
            cwd: cwd.to_owned(),
        };
    }
    match err.kind() {
        io::ErrorKind::NotFound => Error::NotFound {
            program: program.to_owned(),
        },
        io::ErrorKind::PermissionDenied => Error::PermissionDenied {
            program: program.to_owned(),
        },
        _ => Error::Spawn {
            program: program.to_owned(),
            source: err,
        },
    }
}

/// Shell-style quoting for display only (never executed).
fn quote(part: &str) -> String {
    let plain = !part.is_empty()
        && part
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        part.to_owned()
    } else {
        format!("'{}'", part.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_quotes_only_what_needs_it() {
        let mut cmd = Command::new("git");
        cmd.args(["commit", "-m", "it's done", ""]);
        assert_eq!(cmd.command_line(), r#"git commit -m 'it'\''s done' ''"#);
    }

    #[test]
    fn missing_cwd_is_reported_as_such() {
        let err = classify(
            io::Error::from(io::ErrorKind::NotFound),
            "ls",
            Some(Path::new("/definitely/not/here")),
        );
        assert!(matches!(err, Error::CwdNotFound { .. }), "{err:?}");
    }
}
