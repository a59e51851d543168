//! HEAD, branches, commits with and without a configured identity, backups and rollback.

use pawl_git::{BACKUP_REF_PREFIX, Error};

use crate::{EMAIL, NAME, TestRepo};

#[test]
fn head_and_branch_before_and_after_the_first_commit() {
    let t = TestRepo::new();
    assert_eq!(t.repo.head_commit().expect("head"), None);
    assert_eq!(
        t.repo.current_branch().expect("branch").as_deref(),
        Some("main")
    );
    assert_eq!(
        t.repo.commit_all("nothing").expect("commit"),
        None,
        "nothing to commit"
    );

    t.write("a.txt", "a\n");
    let first = t.repo.commit_all("first").expect("commit").expect("id");
    assert_eq!(t.repo.head_commit().expect("head"), Some(first.clone()));
    assert_eq!(t.git(&["rev-parse", "HEAD"]).trim(), first.as_str());
    assert_eq!(
        t.git(&["log", "-1", "--format=%an <%ae>|%s"]).trim(),
        format!("{NAME} <{EMAIL}>|first")
    );

    t.git(&["checkout", "--quiet", "--detach"]);
    assert_eq!(t.repo.current_branch().expect("branch"), None);
}

#[test]
fn create_branch_keeps_work_and_rejects_bad_names() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    let base = t.repo.commit_all("base").expect("commit").expect("id");
    t.write("wip.txt", "in progress\n");
    t.repo
        .create_branch_and_switch("pawl/run-1")
        .expect("switch");
    assert_eq!(
        t.repo.current_branch().expect("branch").as_deref(),
        Some("pawl/run-1")
    );
    assert_eq!(t.repo.head_commit().expect("head"), Some(base));
    assert_eq!(t.read("wip.txt").as_deref(), Some("in progress\n"));

    assert!(matches!(
        t.repo.create_branch_and_switch("bad..name"),
        Err(Error::InvalidRefName { .. })
    ));
    let err = t
        .repo
        .create_branch_and_switch("pawl/run-1")
        .expect_err("exists");
    let message = err.to_string();
    assert!(
        message.starts_with("git command \"git --no-pager"),
        "{message}"
    );
    assert!(
        message.contains(
            "switch --quiet --create pawl/run-1\" failed with status exited with code 128"
        ),
        "{message}"
    );
}

#[test]
fn commits_fall_back_to_pawl_identity_when_none_is_configured() {
    let t = TestRepo::with_global_config("[init]\n\tdefaultBranch = main\n");
    t.write("a.txt", "a\n");
    t.repo.commit_all("auto").expect("commit").expect("id");
    assert_eq!(
        t.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>"]).trim(),
        "pawl <pawl@localhost>|pawl <pawl@localhost>"
    );
    let snapshot = t.repo.snapshot_commit("snap").expect("snapshot");
    assert_eq!(
        t.git(&["log", "-1", "--format=%an", snapshot.as_str()])
            .trim(),
        "pawl"
    );
}

#[test]
fn commit_all_skips_hooks_and_takes_any_message() {
    let t = TestRepo::new();
    let hook = t.repo.git_dir().join("hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().expect("dir")).expect("mkdir");
    std::fs::write(&hook, "#!/bin/sh\nexit 1\n").expect("hook");
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    t.write("a.txt", "a\n");
    let message = "-m looks like a flag\n\nbody line";
    let id = t
        .repo
        .commit_all(message)
        .expect("commit despite the hook")
        .expect("id");
    assert_eq!(
        t.git(&["log", "-1", "--format=%B", id.as_str()]).trim_end(),
        message
    );
}

#[test]
fn backup_refs_are_never_overwritten() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    let one = t.repo.commit_all("one").expect("commit").expect("id");
    t.write("a.txt", "b\n");
    let two = t.repo.commit_all("two").expect("commit").expect("id");

    let name = t.repo.backup_ref("pre-run/1", &one).expect("backup");
    assert_eq!(name, format!("{BACKUP_REF_PREFIX}pre-run/1"));
    assert_eq!(t.git(&["rev-parse", &name]).trim(), one.as_str());
    assert!(matches!(
        t.repo.backup_ref("pre-run/1", &two),
        Err(Error::RefExists { .. })
    ));
    assert_eq!(t.git(&["rev-parse", &name]).trim(), one.as_str());
    assert!(matches!(
        t.repo.backup_ref("bad name", &two),
        Err(Error::InvalidRefName { .. })
    ));
    assert!(matches!(
        t.repo.backup_ref("", &two),
        Err(Error::InvalidRefName { .. })
    ));
}

#[test]
fn rollback_restores_the_commit_and_keeps_everything_recoverable() {
    let t = TestRepo::new();
    t.write(".gitignore", ".pawl/\n");
    t.write("src/lib.rs", "pre-run\n");
    let pre_run = t.repo.commit_all("pre-run").expect("commit").expect("id");
    // The agent's work: one committed change, one uncommitted, one staged, one untracked,
    // one deletion, and pawl's own ignored state.
    t.write("src/lib.rs", "committed by the run\n");
    let run_commit = t.repo.commit_all("run work").expect("commit").expect("id");
    t.write("src/lib.rs", "uncommitted edit\n");
    t.write("staged.txt", "staged\n");
    t.git(&["add", "staged.txt"]);
    t.write("notes/untracked.md", "untracked notes\n");
    t.write(".pawl/pawl.db", "state\n");
    let tree_before = t.repo.tree_hash().expect("hash");

    let rollback = t.repo.rollback_to(&pre_run).expect("rollback");

    // The working tree, index and branch are back at the pre-run commit.
    assert_eq!(t.repo.head_commit().expect("head"), Some(pre_run.clone()));
    assert_eq!(t.read("src/lib.rs").as_deref(), Some("pre-run\n"));
    assert_eq!(t.read("staged.txt"), None);
    assert_eq!(t.read("notes/untracked.md"), None);
    assert!(!t.repo.is_dirty().expect("status"));
    assert_eq!(
        t.repo.current_branch().expect("branch").as_deref(),
        Some("main")
    );
    // Ignored state is kept.
    assert_eq!(t.read(".pawl/pawl.db").as_deref(), Some("state\n"));

    // Everything is recoverable from the backup ref.
    assert!(rollback.backup_ref.starts_with(BACKUP_REF_PREFIX));
    let backup = t.git(&["rev-parse", &rollback.backup_ref]);
    assert_eq!(backup.trim(), rollback.backup_commit.as_str());
    assert_eq!(
        t.git(&["show", &format!("{}:src/lib.rs", rollback.backup_ref)]),
        "uncommitted edit\n"
    );
    assert_eq!(
        t.git(&["show", &format!("{}:staged.txt", rollback.backup_ref)]),
        "staged\n"
    );
    assert_eq!(
        t.git(&[
            "show",
            &format!("{}:notes/untracked.md", rollback.backup_ref)
        ]),
        "untracked notes\n"
    );
    assert_eq!(
        t.git(&["rev-parse", &format!("{}^{{tree}}", rollback.backup_ref)])
            .trim(),
        tree_before.as_str()
    );
    // The abandoned branch tip is the snapshot's parent.
    assert_eq!(
        t.git(&["rev-parse", &format!("{}^", rollback.backup_ref)])
            .trim(),
        run_commit.as_str()
    );
    assert_eq!(rollback.restored_to, pre_run);
}

#[test]
fn aliases_are_reported_by_name() {
    let t = TestRepo::new();
    assert!(t.repo.config_aliases().expect("aliases").is_empty());
    t.git(&["config", "alias.co", "checkout"]);
    t.git(&["config", "alias.nuke", "!rm -rf ."]);
    let aliases = t.repo.config_aliases().expect("aliases");
    assert_eq!(aliases.get("co").map(String::as_str), Some("checkout"));
    assert_eq!(aliases.get("nuke").map(String::as_str), Some("!rm -rf ."));
    assert_eq!(aliases.len(), 2);
}

#[test]
fn opening_a_non_repository_is_a_typed_error() {
    let dir = tempfile::tempdir().expect("dir");
    let home = tempfile::tempdir().expect("home");
    let options = crate::options(home.path(), &home.path().join("none"));
    // A temp dir may sit inside some repository on a developer machine: stop the search there.
    let mut options = options;
    options.env.push((
        "GIT_CEILING_DIRECTORIES".into(),
        dir.path().parent().expect("parent").as_os_str().to_owned(),
    ));
    let err = pawl_git::Repo::open_with(dir.path(), options).expect_err("not a repo");
    assert!(matches!(err, Error::NotARepository { .. }), "{err:?}");
}
