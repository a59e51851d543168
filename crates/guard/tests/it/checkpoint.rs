//! Recursive deletes the checkpoint can undo (`Context::checkpointed`): the rows of
//! `tests/data/checkpoint.tsv`, and the cautious rule without the checkpoint or without
//! knowing what git ignores.

use std::sync::Arc;

use pawl_guard::{Context, Decision, Input, Policy, RuleId, evaluate};

use crate::ignored::Ignored;
use crate::support::corpus_context;
use crate::unescape::unescape;

fn checkpointed() -> Context {
    let mut ctx = corpus_context();
    ctx.checkpointed = true;
    ctx.fs = Arc::new(Ignored);
    ctx
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
