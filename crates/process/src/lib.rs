//! pawl-process: the only place in pawl where a child process is built.
//!
//! Every child gets its own process group, an explicit stdin (null unless bytes are fed), an
//! explicit environment and working directory, and on Linux a parent-death signal so it cannot
//! outlive pawl. Both pipes are drained concurrently by reader threads, so a child can never
//! block on a full pipe; the output is tee'd to an optional log file, summarised as a bounded
//! tail plus a SHA-256 digest, and optionally delivered line by line on a channel.
//!
//! A run ends in exactly one [`End`]: exited, signalled, timed out, idle-timed-out or stopped by
//! request. Stopping always targets the whole group: SIGTERM, a grace period, then SIGKILL.
//!
//! A command can also run **contained** ([`Command::contain`], the [`sandbox`] module): through
//! the step launcher (a pawl binary answering a hidden argument), in new pid and mount
//! namespaces, so that every process it starts ends with it (`setsid`, `nohup`, double forks
//! included), and optionally in a sandbox (read-only binds over what pawl protects, Landlock
//! write rules and signal scoping). pawl runs headless agent steps sandboxed and checks
//! contained; docs/sandbox.md says what is protected by which layer.
//!
//! What this crate is not: a shell (argv only, no parsing), an async runtime (everything is
//! plain threads; callers that are async consume it from a blocking task), or a policy layer
//! (which environment to pass, which timeouts to use, is the caller's decision).
//!
//! ```no_run
//! use std::time::Duration;
//! use pawl_process::Command;
//!
//! let outcome = Command::new("cargo")
//!     .args(["test", "--quiet"])
//!     .current_dir("/path/to/repo")
//!     .timeout(Duration::from_secs(600))
//!     .log_file("/path/to/repo/.pawl/logs/test.log")
//!     .run()?;
//! if !outcome.success() {
//!     let _tail = outcome.combined_tail_text();
//! }
//! # Ok::<(), pawl_process::Error>(())
//! ```
//!
//! Streaming an agent's JSONL with an idle timeout, stoppable from another thread (Ctrl-C):
//!
//! ```no_run
//! use std::sync::mpsc;
//! use std::time::Duration;
//! use pawl_process::{Command, End, Stream};
//!
//! let (lines_tx, lines_rx) = mpsc::channel();
//! let running = Command::new("claude")
//!     .args(["-p", "--output-format", "stream-json", "--verbose"])
//!     .stdin_bytes("the prompt")
//!     .env_remove("ANTHROPIC_LOG")
//!     .idle_timeout(Duration::from_secs(300))
//!     .grace(Duration::from_secs(10))
//!     .line_sink(lines_tx)
//!     .spawn()?;
//! let cancel = running.cancel_handle(); // Clone + Send: give it to the signal handler
//! std::thread::spawn(move || cancel.cancel());
//! for line in lines_rx {
//!     if line.stream == Stream::Stdout {
//!         let _event = line.text(); // parse JSON here
//!     }
//! }
//! let outcome = running.wait()?;
//! if outcome.end == End::IdleTimedOut { /* stalled agent */ }
//! # Ok::<(), pawl_process::Error>(())
//! ```

mod capture;
mod command;
pub mod deadline;
mod env;
mod error;
mod outcome;
mod running;
pub mod sandbox;
mod spawner;
pub mod start;
mod supervise;
mod sys;

pub use capture::LineSink;
pub use command::{Command, Stdin, which};
pub use error::Error;
pub use outcome::{Digest, End, Line, Outcome, Stream, StreamOutput};
pub use running::{CancelHandle, Running};
pub use sandbox::{Containment, Enforced, LaunchSpec, SandboxSpec};
pub use sys::{Signal, process_group_alive, signal_name};
