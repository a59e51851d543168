//! A fleet on this machine: N clones of one repository, one `pawl run` process each against one
//! PostgreSQL store and one fleet budget, some killed -9 in the middle of their first agent step
//! and resumed by a new process. Shared by the fleet test (a dozen runs) and the fleet bench
//! (200): both check the same outcome with [`check`].

#![allow(dead_code)]
#![allow(clippy::print_stderr, reason = "a skipped test says why")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pawl_store::{Location, Store};

/// The step each run's iterations cost (dollars, tokens in + out).
pub const STEP_USD: f64 = 0.0125;
pub const STEP_TOKENS: u64 = 110;
/// What a step holds of the fleet's budget while in flight.
pub const HOLD_USD: f64 = 0.05;

pub struct Fleet {
    pub dir: tempfile::TempDir,
    pub url: String,
    pub fleet: String,
    pub n: usize,
    /// Runs whose first pawl process is killed -9 mid-step.
    pub victims: Vec<usize>,
}

impl Fleet {
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn clone_dir(&self, i: usize) -> PathBuf {
        self.dir.path().join(format!("clone-{i}"))
    }

    fn marks(&self) -> PathBuf {
        self.home().join("marks")
    }

    pub fn command(&self, program: &str, cwd: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env("LANG", "C.UTF-8")
            .env("PAWL_STORE_URL", &self.url)
            .env("PAWL_STORE_FLEET", &self.fleet)
            .current_dir(cwd)
            .stdin(Stdio::null());
        if let Some(tmp) = std::env::var_os("TMPDIR") {
            cmd.env("TMPDIR", tmp);
        }
        cmd
    }

    fn git(&self, cwd: &Path, args: &[&str]) {
        let out = self.command("git", cwd).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The store as an observer opens it (no clone scope: every run).
    pub fn store(&self) -> Store {
        Fleet::open_store(&self.url, &self.home())
    }

    /// The store at `url` with the key pawl keeps under `home` (the jobs' shared HOME here).
    pub fn open_store(url: &str, home: &Path) -> Store {
        let key_path = home.join(".local/state/pawl/key");
        let key = std::fs::read(&key_path)
            .ok()
            .and_then(|k| <[u8; 32]>::try_from(k.as_slice()).ok());
        Store::open_at(
            &Location::Postgres(url.to_string()),
            Box::new(pawl_store::SystemClock),
            key,
        )
        .unwrap()
    }
}

/// The URL of a fresh schema on the test server (`PAWL_TEST_PG_URL`), or `None` (skipped with a
/// reason outside CI; a failure in CI).
pub fn server_schema(tag: &str) -> Option<String> {
    let url = match std::env::var("PAWL_TEST_PG_URL") {
        Ok(u) if !u.is_empty() => u,
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "PAWL_TEST_PG_URL is not set: scripts/test.sh starts PostgreSQL with scripts/pg.sh"
            );
            eprintln!(
                "skipped: PAWL_TEST_PG_URL is not set (eval \"$(bash scripts/pg.sh start)\")"
            );
            return None;
        }
    };
    let schema = format!(
        "fleet_{tag}_{}_{}",
        std::process::id(),
        jiff::Timestamp::now().as_millisecond()
    );
    let db = pawl_store::db::Db::open(&Location::Postgres(url.clone())).unwrap();
    db.execute_batch(&format!("CREATE SCHEMA {schema}"))
        .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}

/// Makes the origin repository and `n` clones of it (no `pawl init` in any clone).
pub fn setup(pawl: &str, url: String, n: usize, victims: Vec<usize>) -> Fleet {
    let fleet = Fleet {
        dir: tempfile::tempdir().unwrap(),
        url,
        fleet: "scale".into(),
        n,
        victims,
    };
    std::fs::create_dir_all(fleet.marks()).unwrap();
    let origin = fleet.dir.path().join("origin");
    std::fs::create_dir_all(&origin).unwrap();
    fleet.git(&origin, &["init", "-q", "-b", "main"]);
    std::fs::write(
        origin.join("pawl.toml"),
        "[agent]\nkind = \"replay\"\n\n[limits]\ncalls_per_hour = 0\nmax_iterations = 6\n\n[pipeline]\nspec_gate = false\n\n[gates]\ntest = \"test -f done.txt\"\n",
    )
    .unwrap();
    std::fs::write(origin.join("README"), "fleet\n").unwrap();
    fleet.git(&origin, &["add", "-A"]);
    fleet.git(&origin, &["commit", "-q", "-m", "init"]);
    let origin_s = origin.display().to_string();
    for i in 0..n {
        let dest = fleet.clone_dir(i).display().to_string();
        fleet.git(fleet.dir.path(), &["clone", "-q", &origin_s, &dest]);
    }
    // The fleet's budget, set by the user before the jobs start.
    let out = fleet
        .command(pawl, fleet.dir.path())
        .args([
            "fleet",
            "budget",
            "scale",
            "--max-usd",
            "1000",
            "--step-usd",
            &HOLD_USD.to_string(),
            "--step-tokens",
            "1000",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pawl fleet budget: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    fleet
}

/// The scenario of run `i`: step 1 spends and (for a victim) waits to be killed; step 2 does the
/// work and spends again.
fn scenario(fleet: &Fleet, i: usize) -> PathBuf {
    let wait = if fleet.victims.contains(&i) {
        format!(
            "{{\"do\": \"run\", \"command\": \"touch $HOME/marks/started-{i}; while [ ! -e $HOME/marks/never ]; do sleep 0.05; done\"}}\n"
        )
    } else {
        String::new()
    };
    let usage = format!(
        "{{\"do\": \"usage\", \"input_tokens\": 100, \"output_tokens\": 10, \"cost_usd\": {STEP_USD}}}\n"
    );
    let text = format!(
        "{{\"step\": 1}}\n{usage}{wait}{{\"step\": 2}}\n{{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\"}}\n{usage}"
    );
    let path = fleet.home().join(format!("scenario-{i}.jsonl"));
    std::fs::write(&path, text).unwrap();
    path
}

pub fn start(fleet: &Fleet, pawl: &str, i: usize) -> Child {
    let s = scenario(fleet, i).display().to_string();
    fleet
        .command(pawl, &fleet.clone_dir(i))
        .args(["run", "--yes", &format!("fleet run {i}"), "--scenario", &s])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// What a whole fleet did.
pub struct Outcome {
    pub wall: Duration,
    pub runs: usize,
    pub events: usize,
}

fn wait_for(path: &Path, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(600);
    while !path.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("pawl exited ({status}) before {} appeared", path.display());
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn finish(mut child: Child, what: &str) {
    let out = child.wait().unwrap();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    assert_eq!(out.code(), Some(0), "{what}: {out}\n{err}");
}

/// Starts every run at once, kills the victims -9 once they are inside their first step,
/// resumes each victim's run from a new process, and waits for all of them.
pub fn drive(fleet: &Fleet, pawl: &str) -> Outcome {
    let started = Instant::now();
    let mut children: Vec<(usize, Child)> =
        (0..fleet.n).map(|i| (i, start(fleet, pawl, i))).collect();
    let mut resumed = Vec::new();
    for (i, child) in children.iter_mut() {
        if !fleet.victims.contains(i) {
            continue;
        }
        wait_for(&fleet.marks().join(format!("started-{i}")), child);
        child.kill().unwrap();
        child.wait().unwrap();
        // Another process picks the run up: the dead holder's lease is taken over.
        let r = fleet
            .command(pawl, &fleet.clone_dir(*i))
            .args(["resume"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        resumed.push((*i, r));
    }
    for (i, child) in children {
        if !fleet.victims.contains(&i) {
            finish(child, &format!("run {i}"));
        }
    }
    for (i, child) in resumed {
        finish(child, &format!("resumed run {i}"));
    }
    let store = fleet.store();
    let events = store.events_after(None, 0, usize::MAX).unwrap().len();
    Outcome {
        wall: started.elapsed(),
        runs: fleet.n,
        events,
    }
}

/// The fleet's outcome: every run done, its events whole and counted once, its leases released
/// (taken over from each killed holder), its cost charged once, the fleet's budget settled to
/// the micro-dollar.
pub fn check(fleet: &Fleet) {
    let store = fleet.store();
    let history = store.run_history().unwrap();
    assert_eq!(history.len(), fleet.n, "one run per clone");
    let mut clones: Vec<String> = history.iter().filter_map(|h| h.clone.clone()).collect();
    clones.sort();
    clones.dedup();
    assert_eq!(clones.len(), fleet.n, "each run in its own clone");
    let mut expected_micro = 0i64;
    let mut expected_tokens = 0u64;
    let mut killed = 0;
    for h in &history {
        let id = &h.run.id;
        assert_eq!(h.run.status.to_string(), "done", "run {id}");
        assert_eq!(h.fleet.as_deref(), Some("scale"));
        // Every row pawl wrote for the run is there, once: the signed per-table counts agree
        // (a lost or a duplicated event, iteration or verdict would be a finding).
        assert_eq!(store.tampering(id).unwrap(), None, "run {id}");
        let events = store.events_after(Some(id), 0, usize::MAX).unwrap();
        let count = |k: &str| events.iter().filter(|e| e.kind == k).count();
        assert_eq!(count("run_created"), 1, "run {id}");
        let iterations = store.iterations(id).unwrap();
        assert_eq!(count("iteration_started"), iterations.len(), "run {id}");
        assert_eq!(
            count("iteration_finished") + count("iteration_interrupted"),
            iterations.len(),
            "run {id}"
        );
        let victim = count("iteration_interrupted") == 1;
        killed += usize::from(victim);
        assert_eq!(count("lease_takeover"), usize::from(victim), "run {id}");
        assert!(
            store.lease(id).unwrap().is_none(),
            "run {id} left its lease"
        );
        // What the run spent, once: the ledger of its iterations equals its history's total.
        let usd: f64 = iterations.iter().map(|it| it.cost_usd).sum();
        assert!(
            (usd - h.spent.usd).abs() < 1e-9,
            "run {id}: {usd} vs {}",
            h.spent.usd
        );
        for it in &iterations {
            if it.outcome.as_deref() == Some("interrupted") {
                // Killed before its spend was known: the fleet charged the whole hold.
                expected_micro += pawl_store::micro_usd(HOLD_USD);
                expected_tokens += 1000;
            } else {
                expected_micro += pawl_store::micro_usd(it.cost_usd);
                expected_tokens += it.tokens_in + it.tokens_out;
            }
        }
    }
    // Each killed run was cut off once, and taken over by its resuming process.
    assert_eq!(killed, fleet.victims.len());
    let t = store.fleet_totals("scale").unwrap().unwrap();
    assert_eq!(t.held_usd, 0.0, "{t:?}");
    assert_eq!(t.steps_in_flight, 0, "{t:?}");
    assert_eq!(pawl_store::micro_usd(t.spent_usd), expected_micro, "{t:?}");
    assert_eq!(t.spent_tokens, expected_tokens, "{t:?}");
    // Seqs are the store's: unique and increasing across the whole fleet.
    let all = store.events_after(None, 0, usize::MAX).unwrap();
    assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
}
