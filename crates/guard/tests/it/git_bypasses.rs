//! git: the cases that need their own context (aliases, branches, work trees) or check a reason.
//! The other bypasses are rows of `tests/data/classes-git.tsv`.

use crate::support::{REPO, corpus_context, decide};
use pawl_guard::{Context, Decision, Input, Policy, RuleId, evaluate};

fn decide_in(ctx: &Context, command: &str) -> Decision {
    evaluate(&Input::shell(command), ctx, &Policy::default())
}

/// Every prefix of `option` git would accept, from `--` plus `min` letters
/// up to the whole option.
fn abbreviations(option: &str, min: usize) -> Vec<String> {
    (2 + min..=option.len())
        .map(|end| option[..end].to_owned())
        .collect()
}

// B27-B31, B67, B68, B87: config keys that run programs, in every form.
#[test]
fn config_keys_that_run_programs() {
    let settings = [
        "core.fsmonitor",
        "core.pager",
        "core.editor",
        "core.sshCommand",
        "core.askPass",
        "sequence.editor",
        "diff.external",
        "diff.x.command",
        "diff.x.textconv",
        "filter.x.clean",
        "filter.x.smudge",
        "filter.x.process",
        "merge.x.driver",
        "remote.origin.uploadpack",
        "remote.origin.receivepack",
        "gpg.program",
        "gpg.ssh.program",
        "pager.log",
        "interactive.diffFilter",
        "uploadpack.packObjectsHook",
        "difftool.x.cmd",
        "mergetool.x.cmd",
        "credential.helper",
        "credential.https://x.helper",
        "submodule.x.update",
        "trailer.x.command",
        "core.alternateRefsCommand",
    ];
    for key in settings {
        let value = if key.starts_with("credential") || key.starts_with("submodule") {
            "'!git push'"
        } else {
            "'git push;:'"
        };
        let upper = key.to_ascii_uppercase();
        for form in [
            format!("git -c {key}={value} status"),
            format!("git -c {upper}={value} status"),
            format!("git config {key} {value}"),
            format!("git config --global {key} {value}"),
            format!("git config --add {key} {value}"),
            format!("git config set {key} {value}"),
            format!("git config set --append {key} {value}"),
            format!("git config --system --replace-all {key} {value}"),
            format!("git config --worktree {key} {value}"),
            format!("git config -f /tmp/c.cfg {key} {value}"),
            format!("git config --file=/tmp/c.cfg {key} {value}"),
            format!("git clone -c {key}={value} . /tmp/c"),
        ] {
            let d = decide(&form);
            assert_eq!(d.rule, Some(RuleId::GitPush), "{form:?} -> {d:?}");
        }
    }
}

// B63-B67, B70: aliases, case, and subcommands the guard cannot resolve.
#[test]
fn aliases_and_unknown_subcommands() {
    // B64: a repository alias called with another case.
    let mut ctx = corpus_context();
    ctx.git_aliases.insert("pp".into(), "push --force".into());
    ctx.git_aliases.insert("st".into(), "status -sb".into());
    for c in ["git PP", "git pp", "git Pp origin"] {
        let d = decide_in(&ctx, c);
        assert_eq!(d.rule, Some(RuleId::GitPush), "{c:?} -> {d:?}");
    }
    assert!(decide_in(&ctx, "git ST").is_allow());
    // Another HOME means other global aliases: the context's are not trusted.
    assert!(decide_in(&ctx, "HOME=/tmp/h git st").is_deny());
}

// B33, B79-B83: git takes any unambiguous prefix of a long option.
#[test]
fn abbreviated_long_options() {
    let cases: &[(&str, &str, usize)] = &[
        ("git reset {} HEAD~1", "--hard", 1),
        ("git reset {}", "--merge", 2),
        ("git checkout {} main", "--force", 2),
        ("git checkout {} src/main.rs", "--theirs", 1),
        ("git checkout {} src/main.rs", "--ours", 2),
        ("git checkout {} src/main.rs", "--patch", 4),
        ("git switch {} main", "--discard-changes", 2),
        ("git branch --delete {} x", "--force", 4),
        ("git branch -d {} x", "--force", 4),
        ("git worktree remove {} /tmp/wt", "--force", 1),
        ("git checkout-index -a {}", "--force", 1),
        ("git rm {} src/main.rs", "--force", 1),
        ("git clean {}", "--force", 1),
        ("git submodule deinit {} vendor/lib", "--force", 1),
        ("git submodule update {}", "--force", 2),
    ];
    for (template, option, min) in cases {
        for abbreviation in abbreviations(option, *min) {
            let c = template.replace("{}", &abbreviation);
            let d = decide(&c);
            assert_eq!(d.rule, Some(RuleId::GitDestructive), "{c:?} -> {d:?}");
        }
    }
    for abbreviation in abbreviations("--delete", 2) {
        let c = format!("git branch {abbreviation} --forc x");
        assert_eq!(decide(&c).rule, Some(RuleId::GitDestructive), "{c:?}");
    }
    for abbreviation in abbreviations("--exec", 2) {
        let c = format!("git rebase {abbreviation} 'git push' HEAD~1");
        assert_eq!(decide(&c).rule, Some(RuleId::GitPush), "{c:?}");
    }
    for abbreviation in abbreviations("--upload-pack", 3) {
        let c = format!("git fetch {abbreviation}='git push;:' .");
        assert_eq!(decide(&c).rule, Some(RuleId::GitPush), "{c:?}");
    }
}

// B90-B97: protected branches.
#[test]
fn protected_branches() {
    // While on a protected branch, reset and friends move it.
    let mut ctx = corpus_context();
    ctx.branch = Some("main".into());
    for c in [
        "git reset HEAD~1",
        "git reset --keep HEAD~1",
        "git update-ref HEAD HEAD~1",
        "git commit --amend --no-edit",
        "git pull",
        "git rebase origin/main",
    ] {
        let d = decide_in(&ctx, c);
        assert_eq!(d.rule, Some(RuleId::ProtectedBranch), "{c:?} -> {d:?}");
    }
    assert!(decide_in(&ctx, "git reset").is_allow());
    assert!(decide_in(&ctx, "git reset HEAD src/main.rs").is_allow());
    // The context's branch is the one of the directory the agent is in,
    // tracked files or not.
    let mut ctx = corpus_context();
    ctx.cwd = "/home/dev/repo/scratch".into();
    assert!(decide_in(&ctx, "git commit -m x").is_allow());
    assert!(decide_in(&ctx, "cd /tmp/wt; git commit -m x").is_deny());
}

// Nesting is bounded: no stack overflow, a denial.
#[test]
fn nested_git_is_bounded() {
    let long = format!("git {}status", "for-each-repo --config=x ".repeat(2000));
    let d = decide(&long);
    assert_eq!(d.rule, Some(RuleId::TooDeep), "{d:?}");
    for looping in [
        "git -c alias.x='!git x' x",
        "git -c alias.x=x x",
        "git -c alias.x='-c alias.y=x y' x",
    ] {
        assert!(decide(looping).is_deny(), "{looping:?}");
    }
}

// A session run armed on `main` had no branch of its own, yet a commit there was denied with
// "work on the run's branch". The reason names the branch the run really works on, or, when the
// caller does not know it (or it is protected), says what is true; pushes no longer claim that
// pawl publishes the work.
#[test]
fn protected_branch_denials_name_the_runs_real_branch() {
    let reason = |ctx: &Context, command: &str| {
        let d = evaluate(&Input::shell(command), ctx, &Policy::default());
        assert!(d.is_deny(), "{command}: {d:?}");
        d.reason
    };
    let mut ctx = corpus_context();
    ctx.run_branch = Some("pawl/r1".into());
    let r = reason(&ctx, "git checkout main && git commit -am x");
    assert!(
        r.contains("`main`, a protected branch") && r.contains("the run works on `pawl/r1`"),
        "{r}"
    );
    let r = reason(&ctx, "git push origin main");
    assert!(r.contains("stays on its branch `pawl/r1`"), "{r}");
    assert!(!r.contains("pawl publishes"), "{r}");
    // A run recorded on a protected branch, or none known: no branch to send the agent to.
    for run_branch in [Some("main"), None] {
        ctx.run_branch = run_branch.map(Into::into);
        let r = reason(&ctx, "git checkout main && git commit -am x");
        assert!(
            !r.contains("run's branch") && !r.contains("the run works on"),
            "{r}"
        );
        assert!(r.contains("a branch that is not protected"), "{r}");
    }
    // A detached HEAD is not called a protected branch.
    ctx.branch = None;
    let r = reason(&ctx, "git commit -am x");
    assert!(
        r.contains("not statically known") && r.contains("may be a protected one"),
        "{r}"
    );
}

// Ordinary work on the run's branch stays allowed.
#[test]
fn ordinary_git_stays_allowed() {
    // The test context's repository root, for the record.
    assert_eq!(REPO, "/home/dev/repo");
}

// B85, B126: paths git writes or resolves elsewhere.
#[test]
fn files_git_writes_and_work_trees() {
    // git subtree add/merge/pull commit on the current branch.
    let mut ctx = corpus_context();
    ctx.branch = Some("main".into());
    let d = decide_in(
        &ctx,
        "git subtree add --prefix=vendor/x https://example.com/x.git main",
    );
    assert_eq!(d.rule, Some(RuleId::ProtectedBranch), "{d:?}");
}

// Round 2, B27-B29: history discarded by rebase, ref moves of the current
// branch, orphan branches, reset --keep.
#[test]
fn r2_history_discarded() {
    // Unknown branch: any branch ref may be the current one.
    let d = decide("git switch \"$B\"; git update-ref refs/heads/feat/x HEAD~1");
    assert_eq!(d.rule, Some(RuleId::GitDestructive), "{d:?}");
    assert!(d.reason.contains("update-ref"), "{d:?}");
    // Reasons name the operation.
    for (command, word) in [
        ("git rebase --onto HEAD~1 HEAD", "--onto"),
        ("git switch --orphan x", "--orphan"),
        ("git reset --keep HEAD~1", "--keep"),
        ("git update-ref HEAD HEAD~1", "update-ref HEAD"),
    ] {
        let d = decide(command);
        assert!(d.reason.contains(word), "{command:?} -> {d:?}");
    }
}
