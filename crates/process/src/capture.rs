//! Everything done with output bytes as they arrive: digest, bounded tails, line splitting, the
//! log file and the caller's line channel.
//!
//! The log file format (documented here because other tools read it): one combined file, in
//! arrival order, written a whole line at a time so the two streams never interleave mid-line.
//! Header and footer lines start with `# `; every output line starts with `out| ` or `err| `.
//! A line that is still incomplete when the run ends is written as a line of its own.
//!
//! A log may be capped ([`crate::Command::log_limit`]): it is then rotated when it reaches half
//! the cap — the file is renamed `<name>.1` (replacing an older one) and a new one begins with a
//! `# [pawl] log rotated: …` line saying where the earlier output is and how much was dropped —
//! so the two files together never hold more than the cap, and the end of the output is always
//! kept. The footer says how much was dropped in all.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Sender, SyncSender};

use sha2::{Digest as _, Sha256};

use crate::outcome::{Digest, Line, Stream, StreamOutput};

/// Per-run capture settings, copied from the [`crate::Command`].
#[derive(Debug, Clone)]
pub(crate) struct CaptureConfig {
    pub(crate) tail_bytes: usize,
    pub(crate) max_line_bytes: usize,
    pub(crate) keep_stdout: bool,
}

/// The state of one stream.
struct StreamState {
    hasher: Sha256,
    total: u64,
    tail: Vec<u8>,
    full: Option<Vec<u8>>,
    /// Bytes after the last newline, waiting for the rest of their line.
    pending: Vec<u8>,
}

impl StreamState {
    fn new(keep_full: bool) -> Self {
        StreamState {
            hasher: Sha256::new(),
            total: 0,
            tail: Vec::new(),
            full: keep_full.then(Vec::new),
            pending: Vec::new(),
        }
    }

    fn record(&mut self, bytes: &[u8], tail_bytes: usize) {
        self.hasher.update(bytes);
        self.total += bytes.len() as u64;
        if let Some(full) = &mut self.full {
            full.extend_from_slice(bytes);
        }
        self.tail.extend_from_slice(bytes);
        // Trim only when twice the budget is used, so trimming is amortised O(1) per byte.
        if self.tail.len() > tail_bytes.saturating_mul(2).max(1) {
            let cut = self.tail.len() - tail_bytes;
            self.tail.drain(..cut);
        }
    }

    fn finish(self, tail_bytes: usize) -> StreamOutput {
        let mut tail = self.tail;
        if tail.len() > tail_bytes {
            tail.drain(..tail.len() - tail_bytes);
        }
        let truncated = self.total > tail.len() as u64;
        if truncated {
            // Start at a line boundary so the first line shown is not a fragment.
            if let Some(pos) = tail.iter().position(|&b| b == b'\n')
                && pos + 1 < tail.len()
            {
                tail.drain(..=pos);
            }
        }
        StreamOutput {
            total_bytes: self.total,
            sha256: Digest(self.hasher.finalize().into()),
            tail,
            truncated,
            full: self.full,
        }
    }
}

/// Where lines are delivered as they arrive ([`crate::Command::line_sink`]): an unbounded
/// channel, or a bounded one — then the run's reading waits for the consumer (the child blocks on
/// a full pipe) and memory does not grow with output.
#[derive(Debug, Clone)]
pub enum LineSink {
    Unbounded(Sender<Line>),
    Bounded(SyncSender<Line>),
}

impl LineSink {
    fn send(&self, line: Line) -> Result<(), ()> {
        match self {
            LineSink::Unbounded(s) => s.send(line).map_err(drop),
            LineSink::Bounded(s) => s.send(line).map_err(drop),
        }
    }
}

impl From<Sender<Line>> for LineSink {
    fn from(s: Sender<Line>) -> Self {
        LineSink::Unbounded(s)
    }
}

impl From<SyncSender<Line>> for LineSink {
    fn from(s: SyncSender<Line>) -> Self {
        LineSink::Bounded(s)
    }
}

/// A run's log file, capped and rotated when it has a cap.
pub(crate) struct LogFile {
    path: PathBuf,
    out: BufWriter<File>,
    /// Bytes in the current file.
    written: u64,
    /// The most the file and its rotated predecessor hold together.
    cap: Option<u64>,
    /// Output bytes no longer in any file.
    dropped: u64,
}

impl LogFile {
    fn rotated_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".1");
        PathBuf::from(name)
    }

    /// Writes one output line (prefix, bytes, newline), rotating first when it would pass half
    /// the cap; a line longer than that is cut, saying so.
    fn line(&mut self, prefix: &str, bytes: &[u8]) -> std::io::Result<()> {
        let mut bytes = bytes;
        let mut cut = 0u64;
        if let Some(cap) = self.cap {
            let half = (cap / 2).max(1024);
            let room = usize::try_from(half.saturating_sub(256)).unwrap_or(usize::MAX);
            if bytes.len() > room {
                cut = (bytes.len() - room) as u64;
                bytes = &bytes[..room];
            }
            if self.written + (prefix.len() + bytes.len() + 1) as u64 > half {
                self.rotate(cap)?;
            }
        }
        self.out.write_all(prefix.as_bytes())?;
        self.out.write_all(bytes)?;
        self.written += (prefix.len() + bytes.len() + 1) as u64;
        if cut > 0 {
            self.dropped += cut;
            let note = format!(" …[pawl: {cut} more bytes of this line cut]");
            self.out.write_all(note.as_bytes())?;
            self.written += note.len() as u64;
        }
        self.out.write_all(b"\n")
    }

    fn rotate(&mut self, cap: u64) -> std::io::Result<()> {
        self.out.flush()?;
        let older = self.rotated_path();
        self.dropped += std::fs::metadata(&older).map(|m| m.len()).unwrap_or(0);
        std::fs::rename(&self.path, &older)?;
        self.out = BufWriter::new(File::create(&self.path)?);
        let name = older
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let note = format!(
            "# [pawl] log rotated: the output before this point is in {name}; {} bytes before that were dropped (this log is capped at {cap} bytes)\n",
            self.dropped
        );
        self.out.write_all(note.as_bytes())?;
        self.written = note.len() as u64;
        Ok(())
    }

    fn comment(&mut self, text: &str) -> std::io::Result<()> {
        for line in text.lines() {
            writeln!(self.out, "# {line}")?;
            self.written += line.len() as u64 + 3;
        }
        Ok(())
    }
}

/// The accumulated output of one run.
pub(crate) struct Capture {
    config: CaptureConfig,
    stdout: StreamState,
    stderr: StreamState,
    combined: VecDeque<Line>,
    combined_bytes: usize,
    log: Option<LogFile>,
    log_error: Option<String>,
    sink: Option<LineSink>,
}

impl Capture {
    pub(crate) fn new(config: CaptureConfig, log: Option<LogFile>, sink: Option<LineSink>) -> Self {
        Capture {
            stdout: StreamState::new(config.keep_stdout),
            stderr: StreamState::new(false),
            config,
            combined: VecDeque::new(),
            combined_bytes: 0,
            log,
            log_error: None,
            sink,
        }
    }

    fn state(&mut self, stream: Stream) -> &mut StreamState {
        match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        }
    }

    /// Takes a chunk of bytes read from `stream`.
    pub(crate) fn push(&mut self, stream: Stream, bytes: &[u8]) {
        let tail_bytes = self.config.tail_bytes;
        let max_line = self.config.max_line_bytes.max(1);
        let state = self.state(stream);
        state.record(bytes, tail_bytes);

        let mut lines = Vec::new();
        let mut rest = bytes;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            let (line, after) = rest.split_at(pos);
            rest = &after[1..];
            let mut whole = std::mem::take(&mut state.pending);
            whole.extend_from_slice(line);
            split_long(stream, whole, max_line, &mut lines);
        }
        state.pending.extend_from_slice(rest);
        if state.pending.len() >= max_line {
            // A line longer than the limit: deliver it in pieces rather than buffer without end.
            let pending = std::mem::take(&mut state.pending);
            let whole_pieces = pending.len() / max_line * max_line;
            lines.extend(pending[..whole_pieces].chunks(max_line).map(|piece| Line {
                stream,
                bytes: piece.to_vec(),
                split: true,
            }));
            state.pending = pending[whole_pieces..].to_vec();
        }
        for line in lines {
            self.emit(line);
        }
    }

    /// The stream reached end of file: its unterminated last line, if any, becomes a line.
    pub(crate) fn eof(&mut self, stream: Stream) {
        let pending = std::mem::take(&mut self.state(stream).pending);
        if !pending.is_empty() {
            self.emit(Line {
                stream,
                bytes: pending,
                split: false,
            });
        }
    }

    fn emit(&mut self, line: Line) {
        self.write_log(|log| log.line(line.stream.log_prefix(), &line.bytes));
        if let Some(sink) = &self.sink
            && sink.send(line.clone()).is_err()
        {
            // The caller stopped listening; keep draining, stop cloning.
            self.sink = None;
        }
        self.push_combined(line);
    }

    fn push_combined(&mut self, mut line: Line) {
        let budget = self.config.tail_bytes;
        if line.bytes.len() > budget {
            line.bytes.drain(..line.bytes.len() - budget);
        }
        self.combined_bytes += line.bytes.len() + 1;
        self.combined.push_back(line);
        while self.combined_bytes > budget && self.combined.len() > 1 {
            if let Some(old) = self.combined.pop_front() {
                self.combined_bytes -= old.bytes.len() + 1;
            }
        }
    }

    /// Writes a `# ` comment line to the log file.
    pub(crate) fn log_comment(&mut self, text: &str) {
        self.write_log(|log| log.comment(text));
    }

    /// Pushes buffered log bytes to disk so that `tail -f` on the log sees them; called whenever
    /// the supervisor is about to wait.
    pub(crate) fn flush(&mut self) {
        self.write_log(|log| log.out.flush());
    }

    fn write_log(&mut self, write: impl FnOnce(&mut LogFile) -> std::io::Result<()>) {
        if let Some(log) = &mut self.log
            && let Err(err) = write(log)
        {
            // A full disk must not fail the gate: stop logging, remember why.
            self.log_error = Some(err.to_string());
            self.log = None;
        }
    }

    /// Ends the capture, writing `footer` to the log.
    pub(crate) fn finish(
        mut self,
        footer: &str,
    ) -> (StreamOutput, StreamOutput, Vec<Line>, Option<String>) {
        self.eof(Stream::Stdout);
        self.eof(Stream::Stderr);
        if let Some(log) = self.log.as_ref().filter(|l| l.dropped > 0) {
            let note = format!(
                "[pawl] {} bytes of output were dropped from this log (capped at {} bytes)",
                log.dropped,
                log.cap.unwrap_or_default()
            );
            self.log_comment(&note);
        }
        self.log_comment(footer);
        self.flush();
        let tail_bytes = self.config.tail_bytes;
        (
            self.stdout.finish(tail_bytes),
            self.stderr.finish(tail_bytes),
            self.combined.into(),
            self.log_error,
        )
    }
}

fn split_long(stream: Stream, whole: Vec<u8>, max_line: usize, lines: &mut Vec<Line>) {
    if whole.len() <= max_line {
        lines.push(Line {
            stream,
            bytes: whole,
            split: false,
        });
        return;
    }
    let count = whole.len().div_ceil(max_line);
    for (i, piece) in whole.chunks(max_line).enumerate() {
        lines.push(Line {
            stream,
            bytes: piece.to_vec(),
            split: i + 1 < count,
        });
    }
}

/// Creates the log file (and its directory; an older rotated one is removed) and writes the
/// header. `cap`: the most its files may hold together.
pub(crate) fn open_log(path: &Path, header: &str, cap: Option<u64>) -> std::io::Result<LogFile> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut log = LogFile {
        path: path.to_owned(),
        out: BufWriter::new(File::create(path)?),
        written: 0,
        cap,
        dropped: 0,
    };
    let _ = std::fs::remove_file(log.rotated_path());
    log.comment(header)?;
    log.out.flush()?;
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn config(tail: usize, max_line: usize) -> CaptureConfig {
        CaptureConfig {
            tail_bytes: tail,
            max_line_bytes: max_line,
            keep_stdout: true,
        }
    }

    #[test]
    fn lines_survive_arbitrary_chunking() {
        let (tx, rx) = mpsc::channel();
        let mut capture = Capture::new(config(1024, 1024), None, Some(tx.into()));
        for chunk in [&b"al"[..], b"pha\nbe", b"ta\n", b"\ngamma"] {
            capture.push(Stream::Stdout, chunk);
        }
        let (out, _, combined, _) = capture.finish("end");
        let got: Vec<String> = rx.iter().map(|l| l.text().into_owned()).collect();
        assert_eq!(got, ["alpha", "beta", "", "gamma"]);
        assert_eq!(combined.len(), 4);
        assert_eq!(out.full.as_deref(), Some(&b"alpha\nbeta\n\ngamma"[..]));
    }

    #[test]
    fn long_lines_are_split_and_marked() {
        let (tx, rx) = mpsc::channel();
        let mut capture = Capture::new(config(1024, 4), None, Some(tx.into()));
        capture.push(Stream::Stderr, b"abcdefghij\nxy");
        drop(capture.finish("end"));
        let got: Vec<(String, bool)> = rx
            .iter()
            .map(|l| (l.text().into_owned(), l.split))
            .collect();
        assert_eq!(
            got,
            [
                ("abcd".into(), true),
                ("efgh".into(), true),
                ("ij".into(), false),
                ("xy".into(), false)
            ]
        );
    }

    #[test]
    fn tail_is_bounded_and_starts_at_a_line() {
        let mut capture = Capture::new(config(16, 1024), None, None);
        for i in 0..100 {
            capture.push(Stream::Stdout, format!("line {i}\n").as_bytes());
        }
        let (out, _, combined, _) = capture.finish("end");
        assert!(out.truncated);
        assert!(out.tail.len() <= 16);
        assert_eq!(out.tail, b"line 99\n");
        assert_eq!(
            combined.last().map(|l| l.text().into_owned()),
            Some("line 99".into())
        );
        assert!(combined.iter().map(|l| l.bytes.len() + 1).sum::<usize>() <= 16);
    }

    #[test]
    fn digest_covers_every_byte() {
        let mut capture = Capture::new(config(4, 1024), None, None);
        capture.push(Stream::Stderr, b"hello ");
        capture.push(Stream::Stderr, b"world");
        let (_, err, _, _) = capture.finish("end");
        assert_eq!(err.total_bytes, 11);
        assert_eq!(
            err.sha256.0,
            <[u8; 32]>::from(Sha256::digest(b"hello world"))
        );
        assert!(err.full.is_none());
    }

    #[test]
    fn a_capped_log_rotates_keeps_the_end_and_states_every_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("step.log");
        let log = open_log(&path, "header", Some(8192)).unwrap();
        let mut capture = Capture::new(config(1024, 1 << 20), Some(log), None);
        for i in 0..2000 {
            capture.push(
                Stream::Stdout,
                format!("line {i:05} of the agent\n").as_bytes(),
            );
        }
        // One line longer than half the cap is cut, saying so.
        let mut long = vec![b'y'; 9000];
        long.push(b'\n');
        capture.push(Stream::Stderr, &long);
        capture.push(Stream::Stdout, b"the very end\n");
        drop(capture.finish("end: exited with code 0"));
        let rotated = dir.path().join("step.log.1");
        let sizes =
            std::fs::metadata(&path).unwrap().len() + std::fs::metadata(&rotated).unwrap().len();
        assert!(sizes <= 8192 + 512, "{sizes}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# [pawl] log rotated: the output before this point is in step.log.1"),
            "{text}"
        );
        assert!(text.contains("more bytes of this line cut"), "{text}");
        assert!(text.contains("out| the very end\n"), "{text}");
        assert!(
            text.contains("bytes of output were dropped from this log (capped at 8192 bytes)"),
            "{text}"
        );
        assert!(
            text.trim_end().ends_with("# end: exited with code 0"),
            "{text}"
        );
        // A new log of the same name starts without the old rotated part.
        drop(open_log(&path, "again", Some(8192)).unwrap());
        assert!(!rotated.exists());
    }
}
