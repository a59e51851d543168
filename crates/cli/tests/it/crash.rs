//! Fault injection: kill -9 at random points of a loop of writes, many times. The database must
//! always open and pass `PRAGMA integrity_check`, and every write that was reported must be there.

use std::io::BufRead;
use std::time::Duration;

use crate::TestEnv;

/// A small deterministic PRNG (xorshift) so failures reproduce from the printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn kill_9_never_loses_a_reported_write_or_corrupts_the_database() {
    let env = TestEnv::new();
    env.manual_run("crash test");
    let seed = 0x5eed_u64 ^ u64::from(std::process::id());
    let mut rng = Rng(seed);
    let rounds = 25;
    let mut total_acked = 0usize;
    for round in 0..rounds {
        let mut child = env
            .command("pawl")
            .args(["debug", "write-loop", "--count", "100000"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .collect::<Vec<_>>()
        });
        std::thread::sleep(Duration::from_millis(20 + rng.next() % 300));
        // SIGKILL: no chance to clean up.
        child.kill().unwrap();
        child.wait().unwrap();
        let acked = reader.join().unwrap();
        total_acked += acked.len();

        let db = env.db();
        let check: String = db
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok", "round {round} (seed {seed:#x})");
        for line in &acked {
            let i = line.strip_prefix("ok ").unwrap();
            let text = format!("note {i}");
            let n: i64 = db
                .query_row("SELECT COUNT(*) FROM notes WHERE text = ?1", [&text], |r| {
                    r.get(0)
                })
                .unwrap();
            assert!(
                n >= 1,
                "round {round}: acknowledged write {text:?} is missing (seed {seed:#x})"
            );
        }
        // Every note has its event: the two were one transaction.
        let (notes, events): (i64, i64) = db
            .query_row(
                "SELECT (SELECT COUNT(*) FROM notes), (SELECT COUNT(*) FROM events WHERE kind = 'note')",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(
            notes, events,
            "round {round}: a note without its event (seed {seed:#x})"
        );
    }
    assert!(
        total_acked > 0,
        "the writer never got going: the test proved nothing"
    );
    // The CLI still works on the survivor.
    env.ok(&["status"]);
}
