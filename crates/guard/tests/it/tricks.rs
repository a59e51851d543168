//! Trick classes that need their own context, policy or `explain`; the others are rows of
//! `tests/data/classes-trick.tsv`.

use std::sync::Arc;

use pawl_guard::{
    Context, DenyRule, Input, Policy, RuleId, TrackedSet, Verdict, evaluate, explain,
};

use crate::support::{corpus_context, decide};

#[test]
fn git_aliases_from_context() {
    let mut ctx = corpus_context();
    ctx.git_aliases.insert("pf".into(), "push --force".into());
    ctx.git_aliases.insert("nuke".into(), "!rm -rf src".into());
    ctx.git_aliases.insert("st".into(), "status -sb".into());
    let policy = Policy::default();
    let d = |c: &str| evaluate(&Input::shell(c), &ctx, &policy);
    assert!(d("git pf").is_deny());
    assert!(d("git nuke").is_deny());
    assert!(d("git st").is_allow());
}

#[test]
fn protected_branch() {
    let mut ctx = corpus_context();
    ctx.branch = Some("main".into());
    let policy = Policy::default();
    let d = |c: &str| evaluate(&Input::shell(c), &ctx, &policy);
    assert!(d("git commit -m x").is_deny());
    assert!(d("git reset --soft HEAD~1").is_deny());
    assert!(d("git status").is_allow());
    assert!(d("git checkout -b feat/new && git commit -m x").is_allow());
    assert!(d("git switch feat/guard && git commit -m x").is_allow());
}

#[test]
fn sensitive_files_from_shell_and_tools() {
    let ctx = corpus_context();
    let policy = Policy::default();
    let w = |p: &str| evaluate(&Input::file_write(p), &ctx, &policy);
    for p in [
        ".env",
        "/home/dev/repo/.env.local",
        "secrets/x.json",
        "infra/main.tf",
        "Dockerfile",
        "k8s/svc.yaml",
        "db/migrations/002.sql",
        "~/.ssh/config",
        "certs/tls.key",
        "src/../.env",
        "",
    ] {
        assert!(w(p).is_deny(), "file write {p:?} should be denied");
    }
    for p in [
        "src/main.rs",
        ".env.example",
        "/home/dev/repo/README.md",
        "docs/secrets.md",
    ] {
        assert!(
            w(p).is_allow(),
            "file write {p:?} should be allowed: {:?}",
            w(p)
        );
    }
}

#[test]
fn fail_closed_limits() {
    let big = "echo a; ".repeat(10_000);
    assert_eq!(decide(&big).rule, Some(RuleId::TooLarge));
    let deep = format!("{}true{}", "(".repeat(200), ")".repeat(200));
    assert_eq!(decide(&deep).rule, Some(RuleId::TooDeep));
    let evals = format!("{}echo hi", "eval ".repeat(40));
    assert_eq!(decide(&evals).rule, Some(RuleId::TooDeep));
    let mut nested = "echo hi".to_owned();
    for _ in 0..6 {
        nested = format!("bash -c {}", pawl_quote(&nested));
    }
    assert!(decide(&nested).is_allow(), "{:?}", decide(&nested));
    assert_eq!(decide("echo 'unterminated").rule, Some(RuleId::ParseError));
    assert_eq!(decide("if then fi").rule, Some(RuleId::ParseError));
}

fn pawl_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn inert_without_a_run_and_policy_switches() {
    let mut ctx = corpus_context();
    ctx.run_active = false;
    let policy = Policy::default();
    assert!(evaluate(&Input::shell("git push --force"), &ctx, &policy).is_allow());
    let always = Policy {
        always: true,
        ..Policy::default()
    };
    assert!(evaluate(&Input::shell("git push --force"), &ctx, &always).is_deny());
    let off = Policy {
        allow_unsafe: true,
        always: true,
        ..Policy::default()
    };
    assert!(evaluate(&Input::shell("rm -rf /"), &corpus_context(), &off).is_allow());
}

#[test]
fn custom_deny_rules_and_policy_errors() {
    let policy = Policy {
        deny: vec![
            DenyRule {
                command: Some("terraform".into()),
                pattern: None,
                reason: Some("no terraform in runs".into()),
            },
            DenyRule {
                command: None,
                pattern: Some(r"^kubectl (delete|drain)\b".into()),
                reason: None,
            },
        ],
        ..Policy::default()
    };
    let ctx = corpus_context();
    let d = evaluate(&Input::shell("sudo /usr/bin/terraform plan"), &ctx, &policy);
    assert_eq!(d.rule, Some(RuleId::PolicyDeny));
    assert!(d.reason.starts_with("no terraform in runs"));
    assert!(
        evaluate(
            &Input::shell("bash -c 'kubectl delete pod x'"),
            &ctx,
            &policy
        )
        .is_deny()
    );
    assert!(evaluate(&Input::shell("kubectl get pods"), &ctx, &policy).is_allow());

    let bad = Policy {
        protected_paths: vec!["[".into()],
        ..Policy::default()
    };
    assert_eq!(
        evaluate(&Input::shell("ls"), &ctx, &bad).rule,
        Some(RuleId::PolicyError)
    );
    let custom_paths = Policy {
        protected_paths: vec!["docs/**".into(), "!docs/draft.md".into()],
        protected_branches: vec!["release/*".into()],
        ..Policy::default()
    };
    assert!(evaluate(&Input::file_write("docs/guide.md"), &ctx, &custom_paths).is_deny());
    assert!(evaluate(&Input::file_write("docs/draft.md"), &ctx, &custom_paths).is_allow());
    assert!(
        evaluate(
            &Input::shell("git checkout release/1.0 && git commit -m x"),
            &ctx,
            &custom_paths
        )
        .is_deny()
    );
}

#[test]
fn tracked_files_default_is_cautious() {
    let mut ctx = Context::new("/r");
    ctx.repo_root = Some("/r".into());
    ctx.run_active = true;
    let policy = Policy::default();
    assert!(evaluate(&Input::shell("echo > anything.txt"), &ctx, &policy).is_deny());
    ctx.tracked = Arc::new(TrackedSet::new());
    assert!(evaluate(&Input::shell("echo > anything.txt"), &ctx, &policy).is_allow());
}

#[test]
fn explanation_lists_commands_with_origins_and_json_shape() {
    let ctx = corpus_context();
    let e = explain(
        &Input::shell("cargo fmt && sudo bash -c 'git push origin HEAD'"),
        &ctx,
        &Policy::default(),
    );
    assert!(e.active);
    assert_eq!(e.decision.decision, Verdict::Deny);
    assert_eq!(e.decision.rule, Some(RuleId::GitPush));
    let git = e
        .commands
        .iter()
        .find(|c| c.argv.first().is_some_and(|a| a == "git"))
        .expect("git command found");
    assert_eq!(git.argv, vec!["git", "push", "origin", "HEAD"]);
    assert!(git.origin.contains("bash -c"), "origin was {}", git.origin);
    assert!(e.parse.contains("command: cargo fmt"));
    let json = serde_json::to_value(&e.decision).expect("serialises");
    assert_eq!(json["decision"], "deny");
    assert_eq!(json["rule"], "git-push");
    assert!(json["reason"].as_str().is_some_and(|r| r.contains("push")));
    let allow = serde_json::to_value(decide("ls")).expect("serialises");
    assert_eq!(allow["decision"], "allow");
    assert!(allow["rule"].is_null());
    let unknown = explain(&Input::shell("$X -rf src"), &ctx, &Policy::default());
    assert_eq!(unknown.commands[0].unknown, vec![0]);
}

/// The walk stops at the first denial (a denial is a value that ends it): the explanation lists
/// the commands up to the denied one and its single rule, not what would have run after it.
#[test]
fn explanation_ends_at_the_first_denial() {
    let ctx = corpus_context();
    let e = explain(
        &Input::shell("cargo fmt && git push -f; rm -rf src; echo done"),
        &ctx,
        &Policy::default(),
    );
    assert_eq!(e.decision.rule, Some(RuleId::GitPush));
    let names: Vec<&str> = e
        .commands
        .iter()
        .filter_map(|c| c.argv.first().map(String::as_str))
        .collect();
    assert_eq!(names, vec!["cargo", "git"]);
    assert!(!e.parse.contains("rm -rf"), "outline was {}", e.parse);
    // A denial inside a nested script stops the outer walk too.
    let e = explain(
        &Input::shell("bash -c 'rm -rf src; git push -f' && echo after"),
        &ctx,
        &Policy::default(),
    );
    assert_eq!(e.decision.rule, Some(RuleId::RecursiveDelete));
    assert!(
        e.commands
            .iter()
            .all(|c| c.argv.first().is_none_or(|a| a == "bash" || a == "rm")),
        "{:?}",
        e.commands
    );
}
