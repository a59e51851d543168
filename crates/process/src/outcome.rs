//! What a finished child leaves behind: how it ended, how long it took, and a bounded summary of
//! what it printed. These are plain data, cheap to store as evidence.

use std::fmt;
use std::time::Duration;

use crate::sys::signal_name;

/// Which pipe a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    /// The prefix used for this stream's lines in the log file (see [`crate::Command::log_file`]).
    pub fn log_prefix(self) -> &'static str {
        match self {
            Stream::Stdout => "out| ",
            Stream::Stderr => "err| ",
        }
    }
}

/// One line of output, delivered as it arrives (see [`crate::Command::line_sink`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub stream: Stream,
    /// The line's bytes without the trailing `\n` (a `\r` before it is kept).
    pub bytes: Vec<u8>,
    /// True when this is not a whole line: it was cut at the maximum line length and the next
    /// [`Line`] of the same stream continues it.
    pub split: bool,
}

impl Line {
    /// The line as text, with invalid UTF-8 replaced.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }
}

/// How a child run ended. Exactly one applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum End {
    /// The child exited on its own with this code.
    Exited(i32),
    /// The child was killed by this signal, which pawl did not send.
    Signalled(i32),
    /// The overall timeout expired and pawl stopped the group.
    TimedOut,
    /// No output arrived for the idle timeout and pawl stopped the group.
    IdleTimedOut,
    /// A [`crate::CancelHandle`] (or dropping the handle) stopped the group.
    Stopped,
    /// The exit status could not be collected (another part of the process reaped the child,
    /// e.g. because SIGCHLD is ignored). Never produced in normal operation.
    Unknown,
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            End::Exited(code) => write!(f, "exited with code {code}"),
            End::Signalled(sig) => write!(f, "killed by signal {sig} ({})", signal_name(*sig)),
            End::TimedOut => f.write_str("timed out"),
            End::IdleTimedOut => f.write_str("idle timeout (no output)"),
            End::Stopped => f.write_str("stopped by request"),
            End::Unknown => f.write_str("ended with an unknown status"),
        }
    }
}

/// A SHA-256 digest of a stream's complete output.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// Lower-case hex, the form stored in evidence.
    pub fn to_hex(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

/// The summary of one output stream.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamOutput {
    /// How many bytes the stream carried in total.
    pub total_bytes: u64,
    /// SHA-256 of every byte of the stream, in order.
    pub sha256: Digest,
    /// The last bytes of the stream (at most the configured tail size). When the stream was
    /// longer, the tail starts at a line boundary if one exists in the kept window.
    pub tail: Vec<u8>,
    /// True when `tail` is not the whole stream.
    pub truncated: bool,
    /// The complete stream, only when requested with [`crate::Command::capture_stdout`]
    /// (meant for short helpers such as git plumbing whose output is the result).
    pub full: Option<Vec<u8>>,
}

impl StreamOutput {
    /// The tail as text, with invalid UTF-8 replaced.
    pub fn tail_text(&self) -> String {
        String::from_utf8_lossy(&self.tail).into_owned()
    }
}

/// The result of a finished child.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// How the run ended.
    pub end: End,
    /// The raw exit of the group leader when it was reaped, also for timed-out and stopped runs
    /// (`End::Exited` / `End::Signalled` as reported by the kernel). `None` only if the child
    /// could not be reaped.
    pub status: Option<End>,
    /// From spawn until the output was fully drained.
    pub duration: Duration,
    pub stdout: StreamOutput,
    pub stderr: StreamOutput,
    /// The last lines of both streams interleaved in arrival order, each with its stream, bounded
    /// by the tail size. This is what a human (or an agent) should see of a failing gate.
    pub combined_tail: Vec<Line>,
    /// True when processes of the group were still alive after the leader exited and had to be
    /// killed (a leaked background job), or kept the pipes open.
    pub leaked: bool,
    /// Set when writing the log file failed mid-run; the run itself is unaffected.
    pub log_error: Option<String>,
    /// The CPU time (user and system) of the leader and every descendant it waited for, as the
    /// kernel counted it when the leader was reaped; `None` when it could not be read. Unlike
    /// [`Outcome::duration`] it hardly moves with the machine's load.
    pub cpu: Option<Duration>,
}

impl Outcome {
    /// True only for a clean `exit(0)`.
    pub fn success(&self) -> bool {
        self.end == End::Exited(0)
    }

    /// The exit code when the child exited on its own.
    pub fn code(&self) -> Option<i32> {
        match self.end {
            End::Exited(code) => Some(code),
            _ => None,
        }
    }

    /// The combined tail rendered as text, each line prefixed with its stream as in the log file.
    pub fn combined_tail_text(&self) -> String {
        let mut text = String::new();
        for line in &self.combined_tail {
            text.push_str(line.stream.log_prefix());
            text.push_str(&line.text());
            text.push('\n');
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_renders_as_lowercase_hex() {
        let mut bytes = [0u8; 32];
        bytes[0] = 0xab;
        bytes[31] = 0x01;
        let hex = Digest(bytes).to_hex();
        assert_eq!(hex.len(), 64);
        assert!(hex.starts_with("ab00"));
        assert!(hex.ends_with("01"));
    }

    #[test]
    fn end_display_names_the_signal() {
        assert_eq!(
            End::Signalled(9).to_string(),
            "killed by signal 9 (SIGKILL)"
        );
        assert_eq!(End::Exited(3).to_string(), "exited with code 3");
    }
}
