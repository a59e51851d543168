//! A service on the host that checks reach over TCP, as a project whose tests need a database on
//! `localhost` sets it up (`[room] network = true`). Nothing a check writes outside its room
//! outlives the check (its `/tmp` is its own, wherever the repository lies), so a test that wants
//! a check to tell it something, or a service that goes down and comes back, uses this: the
//! test's own thread answers each request and keeps what it heard.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The `[room]` table that lets the checks reach a [`Service`].
pub const ROOM_NETWORK: &str = "[room]\nnetwork = true\n";

pub struct Service {
    port: u16,
    heard: Arc<Mutex<Vec<String>>>,
}

impl Service {
    /// Listens on a free port of `127.0.0.1`; `answer(n, line)` is the reply to the `n`-th request
    /// (from 0), given the line the check sent. It runs before the reply is sent: what it does
    /// (a file it creates) is done by the time the check goes on.
    pub fn start(answer: impl Fn(usize, &str) -> String + Send + 'static) -> Service {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&heard);
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
                let mut line = String::new();
                let _ = BufReader::new(&stream).read_line(&mut line);
                let line = line.trim().to_owned();
                let reply = answer(n, &line);
                kept.lock().unwrap().push(line);
                let _ = writeln!(stream, "{reply}");
            }
        });
        Service { port, heard }
    }

    /// A shell command (no double quotes in it) that sends `word` to the service and prints the
    /// reply: bash's `/dev/tcp`.
    pub fn ask(&self, word: &str) -> String {
        format!("{} {word}", self.asker())
    }

    /// A shell command that sends its first argument to the service and prints the reply:
    /// `{asker} held` (no double quotes in it).
    pub fn asker(&self) -> String {
        format!(
            "bash -c 'exec 3<>/dev/tcp/127.0.0.1/{}; echo $1 >&3; read -r r <&3; echo $r' ask",
            self.port
        )
    }

    /// Every line heard so far, in order.
    pub fn heard(&self) -> Vec<String> {
        self.heard.lock().unwrap().clone()
    }
}
