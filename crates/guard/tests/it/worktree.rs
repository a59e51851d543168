//! A command judged in a linked worktree (docs/parallel.md "What the guard sees in a story"):
//! the worktree is the repository, and the directories the caller protects with
//! `Policy::protect_dir` (the run's repository, the other stories' worktrees) are left alone —
//! in a temporary directory too, where a throwaway copy of a protected name is otherwise
//! allowed.

use pawl_guard::{Context, Input, Policy, TrackedSet, evaluate};

fn story(base: &str) -> (Context, Policy) {
    let tree = format!("{base}/state/pawl-worktrees/repo-0123/r1/S1");
    let mut ctx = Context::new(tree.as_str());
    ctx.repo_root = Some(tree.clone().into());
    ctx.run_active = true;
    ctx.home = Some(format!("{base}/home").into());
    ctx.tracked = std::sync::Arc::new(
        ["calc.py", "tests/test_calc.py"]
            .into_iter()
            .collect::<TrackedSet>(),
    );
    let mut policy = Policy::default();
    policy.protect_dir(&format!("{base}/repo"));
    policy.protect_dir(&format!("{base}/state/pawl-worktrees/repo-0123/r1/S2"));
    (ctx, policy)
}

#[test]
fn the_run_s_repository_and_other_stories_are_left_alone_even_in_a_temporary_directory() {
    for base in ["/home/dev/w", "/tmp/w"] {
        let (ctx, policy) = story(base);
        let decide = |c: &str| evaluate(&Input::shell(c), &ctx, &policy);
        for c in [
            format!("echo x >> {base}/repo/calc.py"),
            format!("echo x > {base}/repo/new.txt"),
            format!("rm {base}/repo/calc.py"),
            format!("cp calc.py {base}/repo/calc.py"),
            "echo x > ../S2/calc.py".into(),
            "mv ../S2 /tmp/elsewhere".into(),
            // Another story's worktree removed or moved away by git itself.
            "git worktree remove ../S2".into(),
            format!("git worktree move {base}/state/pawl-worktrees/repo-0123/r1/S2 /tmp/x"),
            "echo x > calc.py".into(),
            "rm -f calc.py tests/test_calc.py".into(),
        ] {
            let d = decide(&c);
            assert!(d.is_deny(), "{base}: {c}: {d:?}");
        }
        for c in [
            format!("cat {base}/repo/calc.py"),
            format!("cp {base}/repo/calc.py calc_old.py"),
            "echo x >> calc.py".into(),
            "echo x > new.txt".into(),
            "rm -rf target".into(),
            // A worktree of its own making, outside everything protected.
            "git worktree remove /tmp/scratch-wt".into(),
            "echo x > /tmp/scratch.txt".into(),
        ] {
            let d = decide(&c);
            assert!(d.is_allow(), "{base}: {c}: {d:?}");
        }
        let write = evaluate(
            &Input::file_write(format!("{base}/repo/calc.py")),
            &ctx,
            &policy,
        );
        assert!(write.is_deny(), "{write:?}");
    }
}

#[test]
fn a_protected_directory_is_taken_as_written_not_as_a_glob() {
    let mut ctx = Context::new("/home/dev/wt");
    ctx.repo_root = Some("/home/dev/wt".into());
    ctx.run_active = true;
    let mut policy = Policy::default();
    policy.protect_dir("/home/dev/a[1]*");
    let decide = |c: &str| evaluate(&Input::shell(c), &ctx, &policy);
    assert!(decide("echo x > '/home/dev/a[1]*/f'").is_deny());
    // (Outside the repository a write is refused on its own since session 19: the policy's
    // match is asked of the reason.)
    let other = decide("echo x > /home/dev/a1x/f");
    assert!(!other.reason.contains("protected"), "{other:?}");
    // Not an absolute path: nothing is protected.
    policy.protect_dir("relative");
    assert!(
        !policy
            .protected_paths
            .iter()
            .any(|p| p.contains("relative"))
    );
}
