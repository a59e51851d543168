//! Handles to a running child: the owner's [`Running`] and any number of [`CancelHandle`]s.
//!
//! Both only send requests to the supervisor (and, for immediate kills, signal the group
//! directly so a kill works even if the process is about to exit); neither blocks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;

use crate::error::Error;
use crate::outcome::Outcome;
use crate::supervise::{Event, StopKind};
use crate::sys::{self, Signal};

/// A spawned, supervised child. Dropping it without [`Running::wait`] kills the group (unless
/// `kill_on_drop(false)`); the supervisor still reaps it in the background.
#[derive(Debug)]
pub struct Running {
    pgid: u32,
    program: String,
    control: Sender<Event>,
    supervisor: Option<JoinHandle<Outcome>>,
    kill_on_drop: bool,
    finished: Arc<AtomicBool>,
}

impl Running {
    pub(crate) fn new(
        pgid: u32,
        program: String,
        control: Sender<Event>,
        supervisor: JoinHandle<Outcome>,
        kill_on_drop: bool,
        finished: Arc<AtomicBool>,
    ) -> Self {
        Running {
            pgid,
            program,
            control,
            supervisor: Some(supervisor),
            kill_on_drop,
            finished,
        }
    }

    /// The child's pid, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.pgid
    }

    /// The process group id (equal to the pid: the child leads its own group).
    pub fn pgid(&self) -> u32 {
        self.pgid
    }

    /// A handle another thread can use to stop the run.
    pub fn cancel_handle(&self) -> CancelHandle {
        CancelHandle {
            pgid: self.pgid,
            control: self.control.clone(),
            finished: Arc::clone(&self.finished),
        }
    }

    /// True once the run is over and [`Running::wait`] will return at once.
    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }

    /// Blocks until the child has ended and its output is drained.
    pub fn wait(mut self) -> Result<Outcome, Error> {
        let Some(handle) = self.supervisor.take() else {
            return Err(Error::SupervisorPanicked {
                program: self.program.clone(),
            });
        };
        handle.join().map_err(|_| {
            let _ = sys::signal_group(self.pgid, Signal::Kill);
            Error::SupervisorPanicked {
                program: self.program.clone(),
            }
        })
    }

    /// The outcome if the run is over, without blocking; `Ok(None)` while it runs.
    /// After it returned `Some`, the handle is spent and [`Running::wait`] returns an error.
    pub fn try_wait(&mut self) -> Result<Option<Outcome>, Error> {
        if !self
            .supervisor
            .as_ref()
            .is_some_and(JoinHandle::is_finished)
        {
            return Ok(None);
        }
        match self.supervisor.take() {
            Some(handle) => handle
                .join()
                .map(Some)
                .map_err(|_| Error::SupervisorPanicked {
                    program: self.program.clone(),
                }),
            None => Ok(None),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.supervisor.is_some() && self.kill_on_drop && !self.is_finished() {
            // Tell the supervisor first, so the request is queued before the exit it causes and
            // the outcome says "stopped"; then signal directly, because if pawl is exiting the
            // supervisor thread may never run again.
            let _ = self.control.send(Event::Stop(StopKind::Now));
            let _ = sys::signal_group(self.pgid, Signal::Kill);
        }
    }
}

/// Stops a run from any thread. Cheap to clone; harmless after the run is over.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    pgid: u32,
    control: Sender<Event>,
    finished: Arc<AtomicBool>,
}

impl CancelHandle {
    /// Graceful stop: SIGTERM to the group, then SIGKILL after the grace period. Calling it again
    /// while the grace period runs changes nothing. The outcome is [`crate::End::Stopped`] unless
    /// the run had already ended or timed out.
    pub fn cancel(&self) {
        let _ = self.control.send(Event::Stop(StopKind::Graceful));
    }

    /// Immediate SIGKILL to the group.
    pub fn kill_now(&self) {
        // Queue the request before the exit it causes, so the outcome says "stopped".
        let _ = self.control.send(Event::Stop(StopKind::Now));
        if !self.is_finished() {
            let _ = sys::signal_group(self.pgid, Signal::Kill);
        }
    }

    /// True once the run is over.
    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }
}
