//! Recursive deletes the checkpoint can undo (`Context::checkpointed`): the rows of
//! `tests/data/checkpoint.tsv`, and the cautious rule without the checkpoint or without
//! knowing what git ignores.

use std::sync::Arc;

use pawl_guard::{Context, Decision, Input, Policy, RuleId, evaluate};

use crate::ignored::Ignored;
use crate::support::{CORPUS_TRACKED, corpus_context};
use crate::unescape::unescape;

/// The corpus context with the checkpoint, what it ignores, and the index's modes as the hook
/// reads them (session 20): one submodule, `third_party/lib`, as in the figures bench.
fn checkpointed() -> Context {
    let mut ctx = corpus_context();
    ctx.checkpointed = true;
    ctx.fs = Arc::new(Ignored);
    ctx.tracked = Arc::new(with_modes(&ctx));
    ctx
}

/// The corpus's tracked files with the index's modes known and one gitlink.
fn with_modes(ctx: &Context) -> pawl_guard::TrackedSet {
    let mut set: pawl_guard::TrackedSet = CORPUS_TRACKED
        .iter()
        .copied()
        .filter(|f| ctx.tracked.is_tracked(f))
        .collect();
    set.insert("dist/server.js");
    set.insert_gitlink("third_party/lib");
    set
}

fn decide_in(ctx: &Context, command: &str) -> Decision {
    evaluate(&Input::shell(command), ctx, &Policy::default())
}

#[test]
fn the_checkpoint_undoes_removing_untracked_directories_and_nothing_else() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/checkpoint.tsv"),
    )
    .unwrap();
    let ctx = checkpointed();
    let mut wrong = Vec::new();
    let mut rows = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (expect, command) = line.split_once('\t').unwrap();
        let command = unescape(command);
        let d = decide_in(&ctx, &command);
        rows += 1;
        if (expect == "deny") != d.is_deny() {
            wrong.push(format!("{expect}\t{command}\t{d:?}"));
        }
    }
    assert!(rows > 40, "{rows} rows");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn without_the_checkpoint_or_the_ignored_files_the_cautious_rule_holds() {
    let plain = corpus_context();
    let d = decide_in(&plain, "rm -rf frontend");
    assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{d:?}");
    assert!(!d.reason.contains("checkpoint"), "{}", d.reason);
    // The checkpoint on, but nothing says what git ignores there: denied, and the reason says
    // why the checkpoint does not cover it.
    let mut blind = corpus_context();
    blind.checkpointed = true;
    let d = decide_in(&blind, "rm -rf frontend");
    assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{d:?}");
    assert!(d.reason.contains("git ignores"), "{}", d.reason);
    assert!(decide_in(&checkpointed(), "rm -rf frontend").is_allow());
}

#[test]
fn without_the_checkpoint_overwriting_a_tracked_file_is_a_clobber() {
    for command in [
        "mv ./package.temp.json ./package.json",
        "echo hello > README.md",
        "cp /dev/null src/main.rs",
    ] {
        let d = decide_in(&corpus_context(), command);
        assert_eq!(d.rule, Some(RuleId::Clobber), "{command}: {d:?}");
        assert!(decide_in(&checkpointed(), command).is_allow(), "{command}");
    }
}

/// Issue 36, point 1 (session 18): a key or certificate the repository tracks is in pawl's
/// checkpoint like any tracked file, so with the checkpoint writing or deleting it is allowed
/// (psf/requests regenerates its tracked test certificates with `openssl ... -out server.pem`
/// in `tests/certs/expired/server/Makefile`). An untracked one, one another protected glob
/// names (`secrets/`), `.env`, and any of them without the checkpoint stay denied.
#[test]
fn a_tracked_key_is_held_by_the_checkpoint() {
    let tracked: pawl_guard::TrackedSet = [
        "README.md",
        "tests/certs/expired/ca/ca.crt",
        "tests/certs/expired/ca/ca-private.key",
        "tests/certs/expired/server/Makefile",
        "tests/certs/expired/server/server.csr",
        "tests/certs/expired/server/server.key",
        "tests/certs/expired/server/server.pem",
        "secrets/server.key",
        ".env",
    ]
    .into_iter()
    .collect();
    let mut ctx = checkpointed();
    ctx.tracked = Arc::new(tracked);
    let mut in_server = ctx.clone();
    in_server.cwd = "/home/dev/repo/tests/certs/expired/server".into();
    let openssl = "openssl x509 -req -CA ../ca/ca.crt -CAkey ../ca/ca-private.key -in server.csr \
                   -outform PEM -out server.pem -days 0 -CAcreateserial";
    assert!(decide_in(&in_server, openssl).is_allow(), "{openssl}");
    for command in [
        "echo x > tests/certs/expired/server/server.pem",
        "rm tests/certs/expired/server/server.key",
        "cp /tmp/new.crt tests/certs/expired/ca/ca.crt",
    ] {
        let d = decide_in(&ctx, command);
        assert!(d.is_allow(), "{command}: {d:?}");
    }
    // Session 19: a key or certificate that is not a file git ignores (absent: a new file; or
    // untracked and not ignored) is held too, and so is a glob of them in a directory that
    // holds no ignored file. (`rm -f server.*` stays denied: it may match a `*.tf`.)
    for command in [
        "echo x > tests/certs/expired/server/other.pem",
        "ln -s ca.crt tests/certs/expired/ca/cacert.pem",
        "rm -f tests/certs/expired/server/server.pe?",
        "chmod 600 tests/certs/expired/server/server.ke?",
    ] {
        let d = decide_in(&ctx, command);
        assert!(d.is_allow(), "{command}: {d:?}");
    }
    for command in [
        "echo x > config/local.key",
        "rm -f config/local.key",
        "rm -f config/*.key",
        "rm -f config/local.*",
        "ln -sf /tmp/k config/local.key",
        "mv config/local.key /tmp/",
        "echo x > *.pem",
        "rm -f *.pem",
        "echo x > .git/x.pem",
        "echo x > .pawl/x.key",
        "echo x > ../other/server.key",
        "echo x > secrets/new.pem",
        "echo x > secrets/server.key",
        "echo x > .env",
        "echo x > ~/.ssh/id.key",
        "rm /home/dev/other/server.key",
    ] {
        let d = decide_in(&ctx, command);
        assert!(d.is_deny(), "{command}: {d:?}");
    }
    let mut unchecked = in_server.clone();
    unchecked.checkpointed = false;
    let d = decide_in(&unchecked, openssl);
    assert_eq!(d.rule, Some(RuleId::ProtectedPath), "{d:?}");
    let mut unchecked = ctx.clone();
    unchecked.checkpointed = false;
    for command in [
        "echo x > tests/certs/expired/server/other.pem",
        "ln -s ca.crt tests/certs/expired/ca/cacert.pem",
        "rm -f tests/certs/expired/server/server.pe?",
    ] {
        let d = decide_in(&unchecked, command);
        assert_eq!(d.rule, Some(RuleId::ProtectedPath), "{command}: {d:?}");
    }
}

/// What a repository whose top holds no ignored file answers (`git ls-files -o -i` empty):
/// nothing under `/home/dev/repo` is ignored; elsewhere, unknown.
struct NothingIgnored;

impl pawl_guard::FileSystemView for NothingIgnored {
    fn resolve_links(&self, _path: &str) -> Option<String> {
        None
    }

    fn holds_ignored(&self, path: &str) -> Option<bool> {
        (path == "/home/dev/repo" || path.starts_with("/home/dev/repo/")).then_some(false)
    }
}

/// A repository whose top holds ignored files only under dot-led entries (`.env`, `.pawl/`,
/// as every pawl repository's top does).
struct OnlyDotIgnored;

impl pawl_guard::FileSystemView for OnlyDotIgnored {
    fn resolve_links(&self, _path: &str) -> Option<String> {
        None
    }

    fn holds_ignored(&self, path: &str) -> Option<bool> {
        (path == "/home/dev/repo" || path.starts_with("/home/dev/repo/"))
            .then_some(path == "/home/dev/repo")
    }

    fn holds_ignored_undotted(&self, path: &str) -> Option<bool> {
        (path == "/home/dev/repo" || path.starts_with("/home/dev/repo/")).then_some(false)
    }
}

/// Session 20: a glob of keys or certificates over the repository's top is held like one over
/// a subdirectory when the top holds no file git ignores (the hook's `holds_ignored` no longer
/// counts the repository's own `.git` as a nested repository); where it holds one (`.env`), or
/// the glob may match another protected name, it stays denied.
#[test]
fn a_glob_of_keys_at_the_top_is_held_when_the_top_holds_no_ignored_file() {
    let mut clean = checkpointed();
    clean.fs = Arc::new(NothingIgnored);
    for command in ["rm -f server*.pem", "rm -f ca.pe?", "chmod 600 server*.key"] {
        let d = decide_in(&clean, command);
        assert!(d.is_allow(), "{command}: {d:?}");
        // The corpus repository's top holds `.env`, ignored: not held.
        let d = decide_in(&checkpointed(), command);
        assert_eq!(d.rule, Some(RuleId::ProtectedPath), "{command}: {d:?}");
        let mut unchecked = clean.clone();
        unchecked.checkpointed = false;
        let d = decide_in(&unchecked, command);
        assert_eq!(d.rule, Some(RuleId::ProtectedPath), "{command}: {d:?}");
        // Ignored files only under the top's dot-led entries (`.pawl/`, `.env`): a glob that
        // cannot match a dot-led name does not reach them.
        let mut dotted = clean.clone();
        dotted.fs = Arc::new(OnlyDotIgnored);
        let d = decide_in(&dotted, command);
        assert!(d.is_allow(), "{command}: {d:?}");
    }
    let mut dotted = clean.clone();
    dotted.fs = Arc::new(OnlyDotIgnored);
    for command in ["rm -f .*.pem", "shopt -s dotglob; rm -f server*.pem"] {
        let d = decide_in(&dotted, command);
        assert_eq!(d.rule, Some(RuleId::ProtectedPath), "{command}: {d:?}");
    }
    // `*.pem` may match an `id_rsa.pem`, `server.*` a `server.tf`: protected whatever the
    // checkpoint.
    for command in [
        "rm -f *.pem",
        "rm -f server.*",
        "rm -f .git/*.pem",
        "rm -f .pawl/*.key",
        "rm -f ../*.pem",
        "rm -f ~/.ssh/*.pem",
        "rm -f secrets/*.pem",
    ] {
        let d = decide_in(&clean, command);
        assert!(d.is_deny(), "{command}: {d:?}");
    }
}

/// Session 20: with the index's modes known, a named directory that is or holds tracked files
/// is held by the checkpoint like an untracked one (each tracked file is in it, as `rm` of a
/// tracked file is allowed under it) unless a gitlink is among them: a submodule's tree is in
/// no checkpoint. Without the modes (a caller that read `git ls-files`), the cautious rule.
#[test]
fn a_tracked_directory_without_a_submodule_is_held_by_the_checkpoint() {
    let files = [
        "README.md",
        "src/main.rs",
        "src/legacy/mod.rs",
        "material/__init__.py",
        "material/templates/base.html",
        "data/seed.sql",
        ".claude/settings.json",
    ];
    let mut known: pawl_guard::TrackedSet = files.into_iter().collect();
    known.know_modes();
    let mut with_submodule = known.clone();
    with_submodule.insert_gitlink("src/vendor/lib");
    let mut ctx = checkpointed();
    ctx.tracked = Arc::new(known);
    let mut sub = ctx.clone();
    sub.tracked = Arc::new(with_submodule);
    let unknown = {
        let mut c = ctx.clone();
        c.tracked = Arc::new(files.into_iter().collect::<pawl_guard::TrackedSet>());
        c
    };
    for command in [
        "rm -rf material",
        "rimraf material && echo built",
        "rm -rf src",
        "rm -r src/legacy",
        "rm -rf ./material/templates",
    ] {
        let d = decide_in(&ctx, command);
        assert!(d.is_allow(), "{command}: {d:?}");
        let d = decide_in(&unknown, command);
        assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{command}: {d:?}");
        let mut unchecked = ctx.clone();
        unchecked.checkpointed = false;
        let d = decide_in(&unchecked, command);
        assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{command}: {d:?}");
    }
    // A submodule among them, or the directory is one: its tree is not in the checkpoint.
    for command in ["rm -rf src", "rm -rf src/vendor", "rm -rf src/vendor/lib"] {
        let d = decide_in(&sub, command);
        assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{command}: {d:?}");
        assert!(d.reason.contains("submodule"), "{command}: {d:?}");
    }
    assert!(decide_in(&sub, "rm -rf material").is_allow());
    // The top, git's and pawl's state, protected paths, ignored files, globs: as before.
    for command in [
        "rm -rf .",
        "rm -rf ./",
        "rm -rf .git",
        "rm -rf .pawl",
        "rm -rf .claude",
        "rm -rf data",
        "rm -rf src/*",
        "rm -rf ../repo/src ../other",
    ] {
        let d = decide_in(&ctx, command);
        assert!(d.is_deny(), "{command}: {d:?}");
    }
}
