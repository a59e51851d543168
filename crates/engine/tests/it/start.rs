//! `pawl_engine::start::start` with a front end that is not the CLI (as `pawl serve` is): a
//! headless run started in a real git repository is sealed, baselined, on its rails and said in
//! order; a refused start writes nothing.

use std::path::{Path, PathBuf};

use pawl_core::config::{Config, SandboxConfig};
use pawl_core::model::Driver;
use pawl_core::parallel::PlannedStory;
use pawl_core::pipeline::ModeArg;
use pawl_core::record::{Run, RunSettings};
use pawl_core::seal::Seal;
use pawl_core::spec::ProjectFacts;
use pawl_engine::start::drive::{self, Answers, DriveHost, DriveRequest, Said};
use pawl_engine::start::{self, Notice, StartError, StartRequest, Started};
use pawl_store::{Arming, Store};

use crate::Test;

pub const TESTS: &[Test] = &[
    (
        "start::a_headless_run_starts_sealed_baselined_and_on_its_rails_for_any_front_end",
        a_headless_run_starts_sealed_baselined_and_on_its_rails_for_any_front_end,
    ),
    (
        "start::a_refused_start_writes_nothing",
        a_refused_start_writes_nothing,
    ),
    (
        "start::a_started_run_is_driven_to_its_end_by_the_engine_for_any_front_end",
        a_started_run_is_driven_to_its_end_by_the_engine_for_any_front_end,
    ),
];

/// A front end that keeps what it is told.
struct Recorder {
    root: PathBuf,
    db: PathBuf,
    notices: Vec<Notice>,
    guard_snapshots: usize,
}

impl start::Host for Recorder {
    type Error = StartError;

    fn notice(&mut self, notice: &Notice) -> Result<(), StartError> {
        self.notices.push(notice.clone());
        Ok(())
    }
    fn state_ready(&mut self, _: Driver) -> Result<(), StartError> {
        std::fs::create_dir_all(self.root.join(".pawl"))
            .map_err(|e| StartError::Failed(e.to_string()))
    }
    fn facts(&mut self) -> Result<ProjectFacts, StartError> {
        Ok(ProjectFacts {
            has_tests: true,
            plain_agent: false,
        })
    }
    fn prepare_sandbox(&mut self, _: &SandboxConfig) -> Result<(), StartError> {
        Ok(())
    }
    fn preflight_agent(&mut self, _: &RunSettings) -> Result<(), StartError> {
        Ok(())
    }
    fn read_plan(&mut self, _: &Path) -> Result<Vec<PlannedStory>, StartError> {
        Err(StartError::Failed("no plans here".into()))
    }
    fn seal(&mut self, config: &Config) -> Result<Seal, StartError> {
        start::seal::seal(start::SealInput {
            root: &self.root,
            goal: "create done.txt",
            gates: &config.gates,
            acceptance: &[],
            user_hidden: Vec::new(),
            hidden: &[],
            env: std::env::vars().collect(),
            pass_env: &[],
            vault: None,
            network: false,
            runs: config.verify.runs,
            scope: config.verify.scope_limits(),
            require_probe: config.verify.require_probe,
        })
    }
    fn workspace(&mut self) -> pawl_engine::Workspace {
        pawl_engine::Workspace::new(self.root.clone(), self.root.join(".pawl"))
    }
    fn store(&mut self) -> Result<Store, StartError> {
        Ok(Store::open(&self.db)?)
    }
    fn guard_snapshot(&mut self, _: &Run) -> Result<(), StartError> {
        self.guard_snapshots += 1;
        Ok(())
    }
    fn record_plan(
        &mut self,
        _: &mut Store,
        _: &str,
        _: &[PlannedStory],
    ) -> Result<(), StartError> {
        Ok(())
    }
    fn session_preflight(&mut self, _: Option<&str>) -> Result<(), StartError> {
        Ok(())
    }
    fn autonomous(&mut self) -> Result<Vec<String>, StartError> {
        Ok(Vec::new())
    }
    fn write_marker(&mut self, _: &Store, _: &Arming) -> Result<(), StartError> {
        Ok(())
    }
    fn offer_lessons(&mut self, _: &mut Store, _: &Run) -> Result<Option<String>, StartError> {
        Ok(None)
    }
}

fn git(root: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(args)
        .envs([
            ("GIT_AUTHOR_NAME", "t"),
            ("GIT_AUTHOR_EMAIL", "t@example.invalid"),
            ("GIT_COMMITTER_NAME", "t"),
            ("GIT_COMMITTER_EMAIL", "t@example.invalid"),
        ])
        .current_dir(root)
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

/// A committed repository whose one gate fails until `done.txt` exists.
fn repository(dir: &Path) -> (Recorder, StartRequest) {
    let root = dir.join("repo");
    std::fs::create_dir_all(&root).expect("root");
    std::fs::write(root.join(".gitignore"), ".pawl/\n").expect("gitignore");
    std::fs::write(root.join("README"), "hello\n").expect("readme");
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "start"]);
    let mut config = Config::default();
    config
        .gates
        .insert("check".into(), "test -f done.txt".into());
    let host = Recorder {
        root: root.clone(),
        db: dir.join("pawl.db"),
        notices: Vec::new(),
        guard_snapshots: 0,
    };
    let req = StartRequest {
        root,
        goal: "create done.txt".into(),
        driver: Driver::Headless,
        config,
        workers_flag: None,
        mode: ModeArg::Simple,
        scenario: None,
        allow_dirty: false,
        plan: None,
        current_session: None,
        owner: None,
        arming_ttl_ms: 0,
    };
    (host, req)
}

fn a_headless_run_starts_sealed_baselined_and_on_its_rails_for_any_front_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut host, req) = repository(dir.path());
    let started = start::start(req, &mut host).expect("started");
    let Started::Headless { run, store, gates } = started else {
        panic!("a headless run");
    };
    assert_eq!(run.mode.as_deref(), Some("simple"));
    assert_eq!(gates.len(), 1);
    assert!(run.settings.seal.is_some(), "the run is sealed");
    assert!(run.pre_run_commit.is_some(), "the run starts from a commit");
    assert_eq!(host.guard_snapshots, 1);
    // Said in order: the mode, the baseline (the gate fails before the run), the rails.
    let kinds: Vec<&str> = host
        .notices
        .iter()
        .map(|n| match n {
            Notice::Mode { .. } => "mode",
            Notice::BaselineStarting { .. } => "baseline starting",
            Notice::Baseline { .. } => "baseline",
            Notice::SandboxBranch { .. } => "sandbox branch",
            Notice::ExpectedScope { .. } => "scope",
            Notice::GuardOff | Notice::GuardRulesOff { .. } => "guard",
        })
        .collect();
    assert_eq!(
        &kinds[..3],
        ["mode", "baseline starting", "baseline"],
        "{kinds:?}"
    );
    let failing = host.notices.iter().find_map(|n| match n {
        Notice::Baseline { failing, .. } => Some(failing.clone()),
        _ => None,
    });
    assert_eq!(failing, Some(vec!["check".to_string()]));
    // The seal and the baseline are the run's events; the run is open for its first step.
    for kind in [pawl_core::EventKind::Sealed, pawl_core::EventKind::Baseline] {
        assert!(
            store.last_event(&run.id, kind).expect("event").is_some(),
            "{kind:?}"
        );
    }
    assert!(!run.status.is_terminal());
}

fn a_refused_start_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Workers without stories: a usage error before anything is written.
    let (mut host, mut req) = repository(dir.path());
    req.workers_flag = Some(3);
    let refused = start::start(req.clone(), &mut host);
    assert!(
        matches!(&refused, Err(StartError::Usage(m)) if m.contains("--workers 3")),
        "{:?}",
        refused.as_ref().err()
    );
    // Uncommitted work: refused by the rails.
    std::fs::write(req.root.join("README"), "changed\n").expect("edit");
    req.workers_flag = None;
    let refused = start::start(req, &mut host);
    assert!(
        matches!(&refused, Err(StartError::Refused(_))),
        "{:?}",
        refused.as_ref().err()
    );
    assert!(host.notices.is_empty(), "{:?}", host.notices);
    assert!(
        !host.db.exists()
            || Store::open(&host.db)
                .expect("store")
                .current_run()
                .expect("run")
                .is_none(),
        "no run was created"
    );
}

/// A front end that drives without a terminal: it keeps what it is told and the loop's events.
#[derive(Default)]
struct Driving {
    root: PathBuf,
    db: PathBuf,
    said: Vec<String>,
    events: usize,
    books_saved: usize,
}

impl DriveHost for Driving {
    type Error = FrontError;

    fn say(&mut self, said: Said<'_>) -> Result<(), Self::Error> {
        self.said.push(
            match said {
                Said::Asking { .. } => "asking",
                Said::SpecGate(_) => "spec gate",
                Said::Lessons { .. } => "lessons",
                Said::Sandbox { .. } => "sandbox",
                Said::Parallel { .. } => "parallel",
                Said::Learnt { .. } => "learnt",
            }
            .to_owned(),
        );
        Ok(())
    }
    fn event(&mut self, _: &pawl_engine::LoopEvent) {
        self.events += 1;
    }
    fn workspace(&mut self) -> pawl_engine::Workspace {
        pawl_engine::Workspace::new(self.root.clone(), self.root.join(".pawl"))
    }
    fn facts(&mut self) -> Result<ProjectFacts, Self::Error> {
        Ok(ProjectFacts {
            has_tests: true,
            plain_agent: false,
        })
    }
    fn store(&mut self) -> Result<Store, Self::Error> {
        Ok(Store::open(&self.db)?)
    }
    fn terminal(&mut self, _: std::time::Duration) -> Box<dyn pawl_engine::Answerer> {
        Box::new(pawl_engine::Autonomous)
    }
    fn interrupts(&mut self, _: &pawl_engine::Control) {}
    fn book(&mut self) -> Result<pawl_core::lessons::Book, Self::Error> {
        Ok(Default::default())
    }
    fn save_book(&mut self, _: &pawl_core::lessons::Book) -> Result<(), Self::Error> {
        self.books_saved += 1;
        Ok(())
    }
    fn worktrees_dir(&mut self, _: &str) -> Result<PathBuf, Self::Error> {
        Err(FrontError("no worktrees here".into()))
    }
    fn publish(&mut self, _: &mut Store, _: &pawl_engine::report::Report) {}
}

/// The driving front end's own error: what went wrong, said.
#[derive(Debug)]
struct FrontError(#[allow(dead_code, reason = "shown by `expect`'s Debug")] String);

impl<E: std::fmt::Display> From<E> for FrontError {
    fn from(e: E) -> Self {
        FrontError(e.to_string())
    }
}

fn a_started_run_is_driven_to_its_end_by_the_engine_for_any_front_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut host, mut req) = repository(dir.path());
    // The replay agent (this test binary is its program) creates the file the gate wants.
    let scenario = dir.path().join("scenario.jsonl");
    std::fs::write(
        &scenario,
        "{\"scenario\": {\"name\": \"creates\", \"session_id\": \"s-1\"}}\n{\"step\": 1}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"done\\n\"}\n{\"do\": \"claim_done\", \"text\": \"done\"}\n",
    )
    .expect("scenario");
    req.config.agent.kind = pawl_core::config::AgentKind::Replay;
    req.scenario = Some(scenario);
    let config = req.config.clone();
    let root = req.root.clone();
    let Started::Headless {
        run,
        mut store,
        gates,
    } = start::start(req, &mut host).expect("started")
    else {
        panic!("a headless run");
    };
    let db = host.db.clone();
    let open_store = move || Ok(Store::open(&db)?);
    let mailbox = || None;
    let mut front = Driving {
        root: root.clone(),
        db: host.db.clone(),
        ..Driving::default()
    };
    let driven = drive::drive(
        DriveRequest {
            run: &run,
            gates,
            root: root.clone(),
            state_dir: root.join(".pawl"),
            config,
            answers: Answers::Unattended,
            terminal: false,
            proceed_as_stated: true,
            force_nested: true,
            owner: pawl_engine::Owner {
                pid: std::process::id(),
                host: "test".into(),
                is_alive: |_| true,
            },
            open_store: &open_store,
            mailbox: &mailbox,
        },
        &mut store,
        &mut front,
    )
    .expect("driven");
    // The agent's step ran and the sealed gate passed on its tree; the stop, the report and the
    // exit code are the engine's.
    assert!(root.join("done.txt").is_file(), "the agent's step ran");
    assert_eq!(driven.end.reason, pawl_core::StopReason::Verified);
    assert!(driven.report_path.is_file(), "the report is written");
    assert_eq!(
        driven.code,
        pawl_core::run_exit_code(driven.end.reason, driven.report.verdict)
    );
    assert!(front.events > 0, "the loop's events reach the front end");
    // What the start says reaches the front end: the sandbox's line always (the spec gate's
    // too when the goal is below the clarity threshold and proceeds as stated).
    assert!(
        front.said.iter().any(|s| s == "sandbox"),
        "{:?}",
        front.said
    );
    assert_eq!(front.books_saved, 1, "what the run taught is kept once");
    // How the steps were launched is the run's record.
    assert!(
        store
            .last_event(&run.id, pawl_core::EventKind::Sandbox)
            .expect("event")
            .is_some()
    );
}
