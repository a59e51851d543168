//! The fixture: a temporary store with one run, the replay agent, a scripted verifier.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pawl_agent::replay::ReplayAdapter;
use pawl_agent::{Adapter, AgentError, AgentEvent, StepRequest};
use pawl_core::config::Dur;
use pawl_core::model::Driver;
use pawl_core::record::RunSettings;
use pawl_engine::{
    CheckSummary, Control, LoopConfig, LoopEnd, LoopEvent, Owner, Verifier, VerifyError,
    VerifyReport,
};
use pawl_store::{NewRun, Store};

/// `<exe> __replay --scenario F --step N`: one step of the scenario, as pawl's binary does.
pub fn replay_step(args: &[String]) -> ExitCode {
    let (mut scenario, mut step) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--scenario" => scenario = it.next().map(PathBuf::from),
            "--step" => step = it.next().and_then(|s| s.parse::<u32>().ok()),
            _ => {}
        }
    }
    let (Some(scenario), Some(step)) = (scenario, step) else {
        return ExitCode::from(2);
    };
    let Ok(text) = std::fs::read_to_string(&scenario) else {
        return ExitCode::from(2);
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    match pawl_agent::replay::execute(&text, step, &cwd, &mut std::io::stdout().lock()) {
        Ok(code) => ExitCode::from(u8::try_from(code.rem_euclid(256)).unwrap_or(1)),
        Err(_) => ExitCode::from(1),
    }
}

/// One verification the scripted verifier answers with.
#[derive(Debug, Clone)]
pub struct Check {
    pub pass: bool,
    pub tree: String,
    pub failing_test: String,
    /// The failure's class (a test failure unless said).
    pub category: pawl_core::FailureCategory,
}

pub fn pass(tree: &str) -> Check {
    Check {
        pass: true,
        tree: tree.into(),
        failing_test: String::new(),
        category: pawl_core::FailureCategory::Test,
    }
}

pub fn fail(tree: &str, test: &str) -> Check {
    Check {
        pass: false,
        tree: tree.into(),
        failing_test: test.into(),
        category: pawl_core::FailureCategory::Test,
    }
}

/// A failure of the infrastructure (transient: pawl backs off and verifies again).
pub fn infra(tree: &str) -> Check {
    Check {
        category: pawl_core::FailureCategory::Infra,
        ..fail(tree, "connection refused")
    }
}

/// Answers each verification with the next row (the last row repeats) and counts the calls.
pub struct Scripted {
    pub rows: Vec<Check>,
    pub calls: usize,
}

impl Scripted {
    pub fn new(rows: Vec<Check>) -> Scripted {
        Scripted { rows, calls: 0 }
    }
}

impl Verifier for Scripted {
    fn verify(&mut self, _store: &mut Store, _run_id: &str) -> Result<VerifyReport, VerifyError> {
        let row = self.rows[self.calls.min(self.rows.len() - 1)].clone();
        self.calls += 1;
        let check = CheckSummary {
            name: "test".into(),
            passed: row.pass,
            end: if row.pass { "exited 0" } else { "exited 1" }.into(),
            failing_tests: if row.pass {
                Vec::new()
            } else {
                vec![row.failing_test.clone()]
            },
            first_failure: (!row.pass).then(|| format!("{} failed", row.failing_test)),
            log: None,
            category: (!row.pass).then_some(row.category),
            cached: false,
            hidden: false,
            tests: None,
            coverage: None,
            no_worse: None,
        };
        Ok(VerifyReport {
            tree_hash: row.tree,
            failing: if row.pass {
                Vec::new()
            } else {
                vec![check.clone()]
            },
            checks: vec![check],
            verified: Vec::new(),
            unmet: Vec::new(),
            done: row.pass,
            outcome: None,
            proof: None,
            ..VerifyReport::default()
        })
    }
}

/// The replay adapter, but each *try* runs the next step of the scenario (a retry within one
/// iteration — after a rate limit or a stall — runs step k+1), and every request is kept.
pub struct Tries {
    inner: ReplayAdapter,
    pub requests: Arc<Mutex<Vec<StepRequest>>>,
}

impl Adapter for Tries {
    fn name(&self) -> &str {
        "replay"
    }
    fn command(&self, req: &StepRequest) -> Result<pawl_process::Command, AgentError> {
        // `command` takes `&self`: the count lives in the shared request log.
        let mut log = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        log.push(req.clone());
        let mut r = req.clone();
        r.iteration = u32::try_from(log.len()).unwrap_or(u32::MAX);
        self.inner.command(&r)
    }
    fn parse_stdout(&mut self, line: &str) -> Vec<AgentEvent> {
        self.inner.parse_stdout(line)
    }
    fn parse_stderr(&mut self, line: &str) -> Vec<AgentEvent> {
        self.inner.parse_stderr(line)
    }
    fn finish(&mut self, exit_code: Option<i32>) -> Vec<AgentEvent> {
        self.inner.finish(exit_code)
    }
}

pub struct Fixture {
    /// Kept for its lifetime: the run's files live in it.
    _dir: tempfile::TempDir,
    pub store: Store,
    pub run_id: String,
    pub cfg: LoopConfig,
    pub control: Control,
    scenario: PathBuf,
    sealed: std::sync::OnceLock<pawl_core::seal::Seal>,
}

fn alive(_: &pawl_core::record::Lease) -> bool {
    true
}

impl Fixture {
    /// A run with `settings` changed by `edit`, and the replay scenario `scenario`.
    pub fn new(scenario: &str, edit: impl FnOnce(&mut RunSettings)) -> Fixture {
        Fixture::with_key(scenario, edit, None)
    }

    /// [`Fixture::new`] for a run whose goal is `goal`.
    pub fn with_goal(scenario: &str, goal: &str) -> Fixture {
        Fixture::make(scenario, |_| {}, None, goal)
    }

    /// [`Fixture::new`] with a store that signs its rows under `key` (as the CLI's does).
    pub fn with_key(
        scenario: &str,
        edit: impl FnOnce(&mut RunSettings),
        key: Option<[u8; 32]>,
    ) -> Fixture {
        Fixture::make(scenario, edit, key, "make the test pass")
    }

    fn make(
        scenario: &str,
        edit: impl FnOnce(&mut RunSettings),
        key: Option<[u8; 32]>,
        goal: &str,
    ) -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("repo");
        std::fs::create_dir_all(&root).expect("root");
        let scenario_path = dir.path().join("scenario.jsonl");
        std::fs::write(&scenario_path, scenario).expect("scenario");
        let mut store = Store::open_with(
            &dir.path().join("pawl.db"),
            Box::new(pawl_store::SystemClock),
            key,
        )
        .expect("store");
        let mut settings = RunSettings::default();
        edit(&mut settings);
        let run = store
            .create_run(&NewRun {
                goal: goal.into(),
                driver: Driver::Headless,
                mode: None,
                settings,
                branch: None,
                pre_run_commit: None,
            })
            .expect("run");
        let cfg = LoopConfig {
            root: root.clone(),
            logs_dir: dir.path().join("logs"),
            private_logs_dir: None,
            model: None,
            agent_env: Vec::new(),
            owner: Owner {
                pid: std::process::id(),
                host: "test".into(),
                is_alive: alive,
            },
            rate_limit_scale: 0.0,
            auto_commit: false,
            containment: None,
            after_step: None,
            before_step: None,
            tester: None,
        };
        let control = Control::new(dir.path().join("stop"));
        Fixture {
            store,
            run_id: run.id,
            cfg,
            control,
            scenario: scenario_path,
            sealed: std::sync::OnceLock::new(),
            _dir: dir,
        }
    }

    pub fn root(&self) -> &Path {
        &self.cfg.root
    }

    /// The store's database (another connection to it, as another `pawl` process has).
    pub fn db_path(&self) -> std::path::PathBuf {
        self._dir.path().join("pawl.db")
    }

    /// The replay adapter over this fixture's scenario (step N for iteration N).
    pub fn replay(&self) -> ReplayAdapter {
        ReplayAdapter::new(&self.scenario).expect("replay adapter")
    }

    /// The replay adapter where each try runs the next step.
    pub fn tries(&self) -> Tries {
        Tries {
            inner: self.replay(),
            requests: Arc::default(),
        }
    }

    /// Drives the run to its end; returns how it ended and what the observer saw.
    pub fn drive(
        &mut self,
        adapter: &mut dyn Adapter,
        verifier: &mut dyn Verifier,
    ) -> (LoopEnd, Vec<LoopEvent>) {
        let mut events = Vec::new();
        let end = pawl_engine::drive(
            &mut self.store,
            &self.run_id,
            adapter,
            verifier,
            &self.cfg,
            &self.control,
            &mut |e| events.push(e.clone()),
        )
        .expect("the loop ends with a typed reason");
        (end, events)
    }

    /// Makes the root a git repository holding `files`, committed.
    pub fn git(&mut self, files: &[(&str, &str)]) {
        for (path, text) in files {
            let p = self.root().join(path);
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).expect("dir");
            }
            std::fs::write(&p, text).expect("file");
        }
        // pawl's state is ignored; a fixture's own `.gitignore` (a crate's `/target`) is kept.
        let own = files
            .iter()
            .find(|(p, _)| *p == ".gitignore")
            .map(|(_, t)| *t)
            .unwrap_or("");
        std::fs::write(self.root().join(".gitignore"), format!("{own}.pawl/\n"))
            .expect("gitignore");
        let repo = pawl_git::Repo::init(self.root(), pawl_git::Options::default()).expect("init");
        let env = [
            ("GIT_AUTHOR_NAME", "t"),
            ("GIT_AUTHOR_EMAIL", "t@example.invalid"),
            ("GIT_COMMITTER_NAME", "t"),
            ("GIT_COMMITTER_EMAIL", "t@example.invalid"),
        ];
        let ok = std::process::Command::new("git")
            .args(["add", "-A"])
            .current_dir(self.root())
            .status()
            .expect("git add")
            .success()
            && std::process::Command::new("git")
                .args(["commit", "-qm", "start"])
                .envs(env)
                .current_dir(self.root())
                .status()
                .expect("git commit")
                .success();
        assert!(ok, "git commit");
        let head = repo.head_commit().expect("head").map(|c| c.to_string());
        self.store
            .set_run_git(&self.run_id, None, head.as_deref())
            .expect("run git");
    }

    /// The repository and pawl's state directory for verification.
    pub fn ws(&self) -> pawl_engine::Workspace {
        pawl_engine::Workspace::new(self.root(), self.root().join(".pawl"))
    }

    /// Seals the run with `seal`.
    pub fn seal(&mut self, seal: pawl_core::seal::Seal) {
        let mut settings = self.store.run(&self.run_id).expect("run").settings;
        settings.seal = Some(seal);
        self.store
            .update_settings(&self.run_id, &settings, "test: sealed")
            .expect("seal");
    }

    pub fn run_seal(&self) -> &pawl_core::seal::Seal {
        self.sealed.get_or_init(|| {
            self.store
                .run(&self.run_id)
                .expect("run")
                .settings
                .seal
                .expect("sealed")
        })
    }

    pub fn record_baseline(&mut self, b: &pawl_engine::baseline::Baseline) {
        self.store
            .append_event(
                Some(&self.run_id),
                pawl_core::EventKind::Baseline,
                serde_json::to_value(b).expect("json"),
            )
            .expect("baseline event");
    }

    pub fn iterations(&self) -> Vec<pawl_core::record::Iteration> {
        self.store.iterations(&self.run_id).expect("iterations")
    }
}

pub fn millis(ms: u64) -> Dur {
    Dur(Duration::from_millis(ms))
}
