//! The context described in `tests/data/guard-corpus.md`, and helpers.

use std::sync::Arc;

use pawl_guard::{Context, Decision, Input, Policy, TrackedSet, evaluate};

pub const REPO: &str = "/home/dev/repo";

/// cwd = repo root, branch `feat/guard`, run active, the corpus's tracked
/// files, HOME and TMPDIR set.
/// The tracked files of the corpus repository (tests/data/guard-corpus.md).
pub const CORPUS_TRACKED: &[&str] = &[
    "README.md",
    "Cargo.toml",
    "Cargo.lock",
    "package.json",
    ".gitignore",
    "CHANGELOG.md",
    "src/main.rs",
    "src/lib.rs",
    "src/guard.rs",
    "src/legacy/mod.rs",
    "docs/guide.md",
    ".github/workflows/ci.yml",
];

pub fn corpus_context() -> Context {
    let mut ctx = Context::new(REPO);
    ctx.repo_root = Some(REPO.into());
    ctx.branch = Some("feat/guard".into());
    ctx.run_active = true;
    ctx.home = Some("/home/dev".into());
    ctx.tmpdir = Some("/var/tmp/agent-tmp".into());
    let tracked: TrackedSet = CORPUS_TRACKED.iter().copied().collect();
    ctx.tracked = Arc::new(tracked);
    ctx
}

pub fn decide(command: &str) -> Decision {
    evaluate(
        &Input::shell(command),
        &corpus_context(),
        &Policy::default(),
    )
}

#[track_caller]
pub fn assert_blocked(command: &str) {
    let d = decide(command);
    assert!(d.is_deny(), "expected deny for {command:?}, got {d:?}");
}

#[track_caller]
pub fn assert_allowed(command: &str) {
    let d = decide(command);
    assert!(d.is_allow(), "expected allow for {command:?}, got {d:?}");
}
