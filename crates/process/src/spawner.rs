//! One long-lived thread that performs every `fork`/`exec` for the process.
//!
//! Why: on Linux the parent-death signal fires when the *thread* that forked the child exits,
//! not when the process does. Callers spawn from all sorts of threads (a tokio blocking pool
//! thread that is reaped after ten idle seconds, a scoped worker), so spawning directly would kill
//! children at random. Forking from a thread that lives as long as the process makes the signal
//! mean what we want: "pawl is gone".

use std::io;
use std::process::{Child, Command};
use std::sync::OnceLock;
use std::sync::mpsc::{self, Sender};

type Reply = Sender<io::Result<Child>>;

static SPAWNER: OnceLock<Option<Sender<(Command, Reply)>>> = OnceLock::new();

/// Spawns `command` from the spawner thread, or from the calling thread if the spawner could not
/// be started (then the parent-death signal is tied to the caller's thread, which is the best
/// that can be done).
pub(crate) fn spawn(mut command: Command) -> io::Result<Child> {
    let Some(sender) = SPAWNER.get_or_init(start) else {
        return command.spawn();
    };
    let (reply_tx, reply_rx) = mpsc::channel();
    if let Err(mpsc::SendError((mut command, _))) = sender.send((command, reply_tx)) {
        return command.spawn();
    }
    reply_rx
        .recv()
        .unwrap_or_else(|_| Err(io::Error::other("the pawl-process spawner thread died")))
}

fn start() -> Option<Sender<(Command, Reply)>> {
    let (tx, rx) = mpsc::channel::<(Command, Reply)>();
    std::thread::Builder::new()
        .name("pawl-spawner".into())
        .spawn(move || {
            // The sender lives in a static, so this loop ends only with the process.
            for (mut command, reply) in rx {
                let _ = reply.send(command.spawn());
            }
        })
        .ok()?;
    Some(tx)
}
