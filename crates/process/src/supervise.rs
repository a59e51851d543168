//! The per-child supervisor: one thread that owns a run from spawn to the last byte.
//!
//! Reader threads, the waiter thread and cancel handles all send [`Event`]s into one channel; the
//! supervisor is the only consumer, so every decision (time out, escalate to SIGKILL, sweep leaked
//! processes) is made in one place without shared mutable state.

use std::io::{self, Read};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::capture::Capture;
use crate::outcome::{End, Outcome, Stream};
use crate::sys::{self, Signal};

/// After the final SIGKILL, how long to wait for the pipes to close before giving up on them
/// (a process outside the group, e.g. one that called `setsid`, may hold them forever).
const FINAL_DRAIN: Duration = Duration::from_secs(2);

/// What the supervisor hears about.
pub(crate) enum Event {
    Chunk(Stream, Vec<u8>),
    Eof(Stream),
    /// The leader's exit, with the CPU time it and the children it waited for used.
    Exited(io::Result<ExitStatus>, Option<Duration>),
    Stop(StopKind),
}

impl std::fmt::Debug for Event {
    // Chunks can be 64 KiB; a debug print shows the kind only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Chunk(stream, bytes) => write!(f, "Chunk({stream:?}, {} bytes)", bytes.len()),
            Event::Eof(stream) => write!(f, "Eof({stream:?})"),
            Event::Exited(status, cpu) => write!(f, "Exited({status:?}, {cpu:?})"),
            Event::Stop(kind) => write!(f, "Stop({kind:?})"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopKind {
    /// SIGTERM, the grace period, then SIGKILL.
    Graceful,
    /// SIGKILL now.
    Now,
}

/// Time limits of one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) timeout: Option<Duration>,
    pub(crate) idle_timeout: Option<Duration>,
    pub(crate) grace: Duration,
    pub(crate) leak_grace: Duration,
}

/// How many bytes read from the pipes may wait for the supervisor at once: readers stop reading
/// (and the child blocks on a full pipe) until the supervisor has taken what was read, so memory
/// does not grow with output however slowly the lines are consumed.
pub(crate) const IN_FLIGHT_BYTES: usize = 1 << 20;

/// The bytes read but not yet taken by the supervisor, shared by the readers and the supervisor.
#[derive(Clone, Default)]
pub(crate) struct Credit(Arc<(Mutex<(usize, bool)>, Condvar)>);

impl Credit {
    /// Waits until `n` more bytes may be in flight (always when none are: a chunk larger than
    /// the budget still goes), then counts them. Never waits once the supervisor is gone.
    fn take(&self, n: usize) {
        let (lock, cv) = &*self.0;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        while !state.1 && state.0 > 0 && state.0 + n > IN_FLIGHT_BYTES {
            state = cv.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.0 += n;
    }

    /// The supervisor took `n` bytes.
    pub(crate) fn give(&self, n: usize) {
        let (lock, cv) = &*self.0;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        state.0 = state.0.saturating_sub(n);
        cv.notify_all();
    }

    /// The supervisor is done: no reader waits any more.
    pub(crate) fn close(&self) {
        let (lock, cv) = &*self.0;
        lock.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        cv.notify_all();
    }
}

/// Reads `pipe` to its end, forwarding chunks within `credit`. Runs on its own thread.
pub(crate) fn pump(mut pipe: impl Read, stream: Stream, events: Sender<Event>, credit: Credit) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                credit.take(n);
                if events
                    .send(Event::Chunk(stream, buf[..n].to_vec()))
                    .is_err()
                {
                    // The supervisor gave up on this pipe; nothing left to deliver to.
                    return;
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            // EIO and friends: treat as end of stream, there is nothing better to do.
            Err(_) => break,
        }
    }
    let _ = events.send(Event::Eof(stream));
}

pub(crate) struct Supervisor {
    pub(crate) pgid: u32,
    pub(crate) started: Instant,
    pub(crate) events: Receiver<Event>,
    pub(crate) capture: Capture,
    pub(crate) limits: Limits,
    pub(crate) finished: Arc<AtomicBool>,
    pub(crate) credit: Credit,
}

/// Closes the credit when the supervisor ends, however it ends.
struct CloseOnDrop(Credit);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

impl Supervisor {
    pub(crate) fn run(mut self) -> Outcome {
        let _close = CloseOnDrop(self.credit.clone());
        let limits = self.limits;
        // What the group leader ended with, once reaped.
        let mut leader: Option<io::Result<ExitStatus>> = None;
        let mut cpu: Option<Duration> = None;
        let mut open_pipes = 2u8;
        let mut last_output = self.started;
        // Why pawl stopped the group, if it did.
        let mut reason: Option<End> = None;
        // When to send SIGKILL to the group (end of a grace period, or of the leak grace).
        let mut kill_at: Option<Instant> = None;
        // When to stop waiting for the pipes after the last SIGKILL.
        let mut give_up_at: Option<Instant> = None;
        let mut leaked = false;

        while leader.is_none() || open_pipes > 0 {
            let alive = leader.is_none();
            let mut deadline: Option<Instant> = None;
            let mut consider = |at: Instant| {
                deadline = Some(deadline.map_or(at, |d: Instant| d.min(at)));
            };
            if alive && reason.is_none() {
                if let Some(timeout) = limits.timeout {
                    consider(self.started + timeout);
                }
                if let Some(idle) = limits.idle_timeout {
                    consider(last_output + idle);
                }
            }
            if let Some(at) = kill_at {
                consider(at);
            }
            if let Some(at) = give_up_at {
                consider(at);
            }

            let event = match self.events.try_recv() {
                Ok(event) => Some(event),
                Err(TryRecvError::Disconnected) => break,
                Err(TryRecvError::Empty) => {
                    // About to block: make the log current for anyone tailing it.
                    self.capture.flush();
                    match deadline {
                        None => match self.events.recv() {
                            Ok(event) => Some(event),
                            Err(_) => break,
                        },
                        Some(at) => {
                            let wait = at.saturating_duration_since(Instant::now());
                            match self.events.recv_timeout(wait) {
                                Ok(event) => Some(event),
                                Err(RecvTimeoutError::Timeout) => None,
                                Err(RecvTimeoutError::Disconnected) => break,
                            }
                        }
                    }
                }
            };

            let now = Instant::now();
            match event {
                Some(Event::Chunk(stream, bytes)) => {
                    last_output = now;
                    self.capture.push(stream, &bytes);
                    self.credit.give(bytes.len());
                }
                Some(Event::Eof(stream)) => {
                    open_pipes = open_pipes.saturating_sub(1);
                    self.capture.eof(stream);
                }
                Some(Event::Exited(status, used)) => {
                    leader = Some(status);
                    cpu = used;
                    if open_pipes > 0 && kill_at.is_none() {
                        // Something else in the group holds the pipes: give it a moment to
                        // finish writing, then sweep the group.
                        kill_at = Some(now + limits.leak_grace);
                    }
                }
                Some(Event::Stop(kind)) => {
                    if alive && reason.is_none() {
                        reason = Some(End::Stopped);
                    }
                    match kind {
                        StopKind::Now => {
                            self.kill(&mut kill_at, &mut give_up_at, now);
                        }
                        StopKind::Graceful if !alive => {
                            // Only stragglers are left; they get no grace.
                            self.kill(&mut kill_at, &mut give_up_at, now);
                        }
                        StopKind::Graceful => {
                            if kill_at.is_none() {
                                let _ = sys::signal_group(self.pgid, Signal::Term);
                                kill_at = Some(now + limits.grace);
                            }
                        }
                    }
                }
                None => {
                    if kill_at.is_some_and(|at| now >= at) {
                        if !alive && reason.is_none() {
                            leaked = true;
                        }
                        self.kill(&mut kill_at, &mut give_up_at, now);
                    } else if give_up_at.is_some_and(|at| now >= at) {
                        leaked = true;
                        break;
                    } else if alive && reason.is_none() {
                        let timed_out = limits.timeout.is_some_and(|t| now >= self.started + t);
                        let idle = limits.idle_timeout.is_some_and(|i| now >= last_output + i);
                        if timed_out || idle {
                            reason = Some(if timed_out {
                                End::TimedOut
                            } else {
                                End::IdleTimedOut
                            });
                            let _ = sys::signal_group(self.pgid, Signal::Term);
                            kill_at = Some(now + limits.grace);
                        }
                    }
                }
            }
        }

        // Nothing of the group may outlive the run, including children that closed their pipes
        // (`cmd >/dev/null &`). Finding one alive after a normal exit means it leaked.
        if matches!(sys::signal_group(self.pgid, Signal::Kill), Ok(true)) && reason.is_none() {
            leaked = true;
        }

        let status = match &leader {
            Some(Ok(status)) => Some(end_of(*status)),
            _ => None,
        };
        let end = reason.or(status).unwrap_or(End::Unknown);
        let duration = self.started.elapsed();
        let footer = format!("end: {end} after {:.3}s", duration.as_secs_f64());
        if let Some(cpu) = cpu {
            self.capture.log_comment(&format!(
                "cpu: {:.3}s (user and system: the command and the children it waited for)",
                cpu.as_secs_f64()
            ));
        }
        let (stdout, stderr, combined_tail, log_error) = self.capture.finish(&footer);
        self.finished.store(true, Ordering::SeqCst);
        Outcome {
            end,
            status,
            duration,
            stdout,
            stderr,
            combined_tail,
            leaked,
            log_error,
            cpu,
        }
    }

    fn kill(&self, kill_at: &mut Option<Instant>, give_up_at: &mut Option<Instant>, now: Instant) {
        let _ = sys::signal_group(self.pgid, Signal::Kill);
        *kill_at = None;
        if give_up_at.is_none() {
            *give_up_at = Some(now + FINAL_DRAIN);
        }
    }
}

/// Maps a kernel exit status to an [`End`].
fn end_of(status: ExitStatus) -> End {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => End::Exited(code),
        (None, Some(signal)) => End::Signalled(signal),
        (None, None) => End::Unknown,
    }
}
