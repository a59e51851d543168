//! Files: the cases that need their own context or a filesystem view (symbolic links, listings,
//! `Input::FileWrite`). The other bypasses are rows of `tests/data/classes-fs.tsv`.

use std::sync::{Arc, Mutex};

use pawl_guard::{
    Context, Decision, FileSystemView, Input, Policy, RuleId, TrackedFiles, evaluate,
};

use crate::support::{assert_allowed, assert_blocked, corpus_context, decide};

fn with_ctx(command: &str, ctx: &Context) -> Decision {
    evaluate(&Input::shell(command), ctx, &Policy::default())
}

/// A filesystem view in which `/tmp/lnk` is a symbolic link to the repository and
/// `target` (in the repository) one to `src`.
struct Links;

impl FileSystemView for Links {
    fn resolve_links(&self, path: &str) -> Option<String> {
        for (link, to) in [
            ("/tmp/lnk", "/home/dev/repo"),
            ("/home/dev/repo/target", "/home/dev/repo/src"),
            ("/tmp/readme", "/home/dev/repo/README.md"),
            ("/tmp/envlink", "/home/dev/repo/.env"),
        ] {
            if path == link {
                return Some(to.to_owned());
            }
            if let Some(rest) = path.strip_prefix(&format!("{link}/")) {
                return Some(format!("{to}/{rest}"));
            }
        }
        Some(path.to_owned())
    }
}

#[test]
fn existing_symbolic_links_are_followed_with_a_filesystem_view() {
    let mut ctx = corpus_context();
    ctx.fs = Arc::new(Links);
    for (c, rule) in [
        ("rm -rf /tmp/lnk/src", RuleId::RecursiveDelete),
        ("rm -rf /tmp/lnk/", RuleId::RecursiveDelete),
        ("rm -rf target/*", RuleId::RecursiveDelete),
        ("rm -rf target/debug", RuleId::RecursiveDelete),
        ("echo x > /tmp/readme", RuleId::Clobber),
        ("echo x >> /tmp/envlink", RuleId::ProtectedPath),
        ("rm /tmp/lnk/.env", RuleId::ProtectedPath),
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_deny(), "{c}: {d:?}");
        assert_eq!(d.rule, Some(rule), "{c}: {d:?}");
    }
    // Removing the link itself is fine: rm does not follow it.
    for c in [
        "rm -rf /tmp/lnk",
        "rm /tmp/readme",
        "rm -rf /tmp/other",
        "echo x > /tmp/x",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_allow(), "{c}: {d:?}");
    }
    // The agent's file tools too: a write through an existing link to .env.
    for path in [
        "/tmp/envlink",
        "/tmp/lnk/.env",
        "/tmp/lnk/.git/hooks/pre-commit",
    ] {
        let d = evaluate(&Input::file_write(path), &ctx, &Policy::default());
        assert!(d.is_deny(), "{path}: {d:?}");
    }
    assert!(
        evaluate(
            &Input::file_write("/tmp/lnk/notes.md"),
            &ctx,
            &Policy::default()
        )
        .is_allow()
    );
    // Without a view, paths are judged as written (the default).
    assert!(decide("rm -rf /tmp/lnk/src").is_allow());
    let plain = corpus_context();
    assert!(
        evaluate(
            &Input::file_write("/tmp/envlink"),
            &plain,
            &Policy::default()
        )
        .is_allow()
    );
}

#[test]
fn b103_globs_that_can_match_the_repository_or_home() {
    let mut ctx = corpus_context();
    ctx.repo_root = Some("/tmp/redteam/repo".into());
    ctx.cwd = "/tmp/redteam/repo".into();
    for c in [
        "rm -rf /tmp/redteam/rep?",
        "rm -rf /tmp/*",
        "rm -rf /tmp/red*",
        "rm -rf /tmp/*/repo",
        "rm -rf /tmp/redteam/*/src",
        "rm -rf /t*p/redteam",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_deny(), "{c}: {d:?}");
        assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{c}: {d:?}");
    }
    for c in [
        "rm -rf /tmp/other*",
        "rm -rf /tmp/redteam/x*",
        "rm -rf target/*",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_allow(), "{c}: {d:?}");
    }
}

#[test]
fn b138_protected_names_regardless_of_case() {
    let ctx = corpus_context();
    let policy = Policy::default();
    for path in [".ENV", "DockerFile", "SECRETS/token"] {
        assert!(
            evaluate(&Input::file_write(path), &ctx, &policy).is_deny(),
            "{path}"
        );
    }
}

#[test]
fn b139_more_than_one_tracked_file_per_rm() {
    let d = decide("rm README.md CHANGELOG.md");
    assert!(d.reason.contains("git rm"), "{d:?}");
}

/// A tracked-file index that cannot list its files (like a lazy caller that only answers
/// yes/no questions).
struct Opaque;

impl TrackedFiles for Opaque {
    fn is_tracked(&self, path: &str) -> bool {
        path == "README.md"
    }
    fn has_tracked_under(&self, dir: &str) -> bool {
        dir.is_empty() || dir == "src"
    }
}

#[test]
fn f7_without_a_listing_a_glob_rm_stays_denied() {
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(Opaque);
    let d = with_ctx("rm -f *.orig", &ctx);
    assert!(d.is_deny(), "{d:?}");
    assert_eq!(d.rule, Some(RuleId::DestructiveShell));
}

#[test]
fn f8_more_build_outputs() {
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(
        ["dist/index.js", "README.md"]
            .into_iter()
            .collect::<pawl_guard::TrackedSet>(),
    );
    let d = with_ctx("rm -rf dist", &ctx);
    assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{d:?}");
    let mut ctx2 = corpus_context();
    ctx2.tracked = Arc::new(
        ["bin/release.sh", "site/index.md", "docs/_build/keep.txt"]
            .into_iter()
            .collect::<pawl_guard::TrackedSet>(),
    );
    for c in ["rm -rf bin", "rm -rf site", "rm -rf docs/_build"] {
        let d = with_ctx(c, &ctx2);
        assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{c}: {d:?}");
    }
    let d = with_ctx("rm -rf dist/*", &ctx);
    assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{d:?}");
}

/// macOS: `/tmp` and `/var` are links into `/private`, and so is a repository under them.
struct Private;

impl FileSystemView for Private {
    fn resolve_links(&self, path: &str) -> Option<String> {
        for prefix in ["/tmp", "/var"] {
            if path == prefix || path.starts_with(&format!("{prefix}/")) {
                return Some(format!("/private{path}"));
            }
        }
        Some(path.to_owned())
    }
}

#[test]
fn resolved_anchors_keep_their_usual_names() {
    let mut ctx = corpus_context();
    ctx.fs = Arc::new(Private);
    for c in [
        "rm -rf /tmp/x",
        "rm -rf \"$TMPDIR/cache\"",
        "rm -rf /tmp/x/*",
        "echo x > /tmp/notes",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_allow(), "{c}: {d:?}");
    }
    ctx.repo_root = Some("/tmp/work/repo".into());
    ctx.cwd = "/tmp/work/repo".into();
    for c in ["rm -rf target", "rm -rf /tmp/other", "echo x > notes.txt"] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_allow(), "{c}: {d:?}");
    }
    for c in [
        "rm -rf src",
        "rm -rf /tmp/work",
        "echo x > README.md",
        "echo x > .env",
    ] {
        assert!(with_ctx(c, &ctx).is_deny(), "{c}");
    }
}

/// A filesystem view that records what it was asked: it is asked lazily, and only about
/// paths the command names.
struct Recording(Mutex<Vec<String>>);

impl FileSystemView for Recording {
    fn resolve_links(&self, path: &str) -> Option<String> {
        if let Ok(mut asked) = self.0.lock() {
            asked.push(path.to_owned());
        }
        None
    }
}

#[test]
fn the_filesystem_view_is_asked_lazily() {
    let view = Arc::new(Recording(Mutex::new(Vec::new())));
    let mut ctx = corpus_context();
    ctx.fs = view.clone();
    assert!(with_ctx("cargo test && git status", &ctx).is_allow());
    assert!(view.0.lock().map(|a| a.is_empty()).unwrap_or(false));
    assert!(with_ctx("rm -rf target/debug", &ctx).is_allow());
    let asked = view.0.lock().map(|a| a.clone()).unwrap_or_default();
    assert!(
        asked.iter().any(|p| p == "/home/dev/repo/target"),
        "{asked:?}"
    );
}

// ---- Round 2 (files) ----

#[test]
fn r2_f3_globs_of_allowance_directories() {
    // A tracked file inside a matched directory, or two tracked lock files.
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(
        [
            "packages/a/dist/keep.js",
            "py/__pycache__/x.pyc",
            "Cargo.lock",
            "package-lock.json",
        ]
        .into_iter()
        .collect::<pawl_guard::TrackedSet>(),
    );
    for c in [
        "rm -rf packages/*/dist",
        "rm -rf **/__pycache__",
        "rm -rf */__pycache__",
        "rm -rf Cargo.lock package-lock.json",
    ] {
        assert!(with_ctx(c, &ctx).is_deny(), "{c}");
    }
    assert!(with_ctx("rm -rf packages/*/node_modules", &ctx).is_allow());
    assert!(with_ctx("rm -rf node_modules package-lock.json", &ctx).is_allow());
    // Without a listing of tracked files, a glob of allowance directories is not removable.
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(Unlisted);
    assert!(with_ctx("rm -rf packages/*/node_modules", &ctx).is_deny());
}

/// A tracked-file index that cannot be enumerated.
struct Unlisted;

impl TrackedFiles for Unlisted {
    fn is_tracked(&self, path: &str) -> bool {
        path == "README.md"
    }
    fn has_tracked_under(&self, dir: &str) -> bool {
        dir.is_empty()
    }
}

#[test]
fn r2_f3_find_removes_build_debris() {
    for c in [
        "find . -name '*.pyc' -delete",
        "find . -name .DS_Store -delete",
        "find . -type f -name '*.class' -delete",
        "find src -name '*.o' -delete",
        "find . -type d -name __pycache__ -exec rm -rf {} +",
        "find . -name __pycache__ -type d -exec rm -rf {} +",
        "find . -name node_modules -type d -prune -exec rm -rf {} + 2>/dev/null || true",
        "find . -name '*.pyc' -exec rm {} \\;",
        "find target -name '*.d' -exec rm {} +",
        "find . -iname '*.PYC' -delete",
        "find /tmp -name 'demo-*' -mtime +1 -delete",
        "find target -name '*.o' -delete",
        "find /tmp/build -delete",
        "find \"$TMPDIR\" -name 'x*' -exec rm -rf {} +",
    ] {
        // `-prune` only stops find descending into what it removes (issue 36: cache and
        // build-output deletes are everyday work).
        assert_allowed(c);
    }
    // A source directory is not a cache, pruned or not.
    assert_blocked("find . -name src -prune -exec rm -rf {} +");
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(
        ["src/a.o", "lib/__pycache__/keep.pyc", "README.md"]
            .into_iter()
            .collect::<pawl_guard::TrackedSet>(),
    );
    for c in [
        "find . -name '*.o' -delete",
        "find src -name '*.o' -delete",
        "find . -type d -name __pycache__ -exec rm -rf {} +",
        "find lib -name '*.pyc' -delete",
    ] {
        assert!(with_ctx(c, &ctx).is_deny(), "{c}");
    }
    assert!(with_ctx("find docs -name '*.o' -delete", &ctx).is_allow());
    // `rm -rf` of a directory whose name looks like an artifact removes what it holds.
    let mut ctx2 = corpus_context();
    ctx2.tracked = Arc::new(
        ["lib/data.o/keep.txt"]
            .into_iter()
            .collect::<pawl_guard::TrackedSet>(),
    );
    assert!(with_ctx("find . -name '*.o' -exec rm -rf {} +", &ctx2).is_deny());
    assert!(with_ctx("find . -name '*.o' -delete", &ctx2).is_allow());
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(Unlisted);
    assert!(with_ctx("find . -name '*.pyc' -delete", &ctx).is_deny());
}

#[test]
fn r2_f7_truncate_follows_links_into_the_repository() {
    // `/tmp/readme` leads to README.md (see `Links`).
    let mut ctx = corpus_context();
    ctx.fs = Arc::new(Links);
    for c in [
        "truncate -s0 /tmp/readme",
        "shred /tmp/readme",
        "dd if=/dev/zero of=/tmp/readme",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_deny(), "{c}: {d:?}");
        // Without the view the path is judged as written.
        assert!(decide(c).is_allow(), "{c}");
    }
    assert!(with_ctx("truncate -s0 /tmp/other.log", &ctx).is_allow());
}
