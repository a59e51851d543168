//! The lint-fix backup restores the tree exactly, untracked files included, without moving HEAD.

use std::os::unix::fs::PermissionsExt;

use pawl_git::{Options, Repo};
use pawl_verify::backup::TreeBackup;

fn repo(dir: &tempfile::TempDir) -> Repo {
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    let options = Options {
        env: vec![
            ("HOME".into(), home.clone().into()),
            ("GIT_CONFIG_GLOBAL".into(), home.join("gitconfig").into()),
        ],
        ..Options::default()
    };
    Repo::init(&root, options).unwrap()
}

#[test]
fn restore_puts_back_every_byte_and_removes_new_files() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo(&dir);
    let root = repo.root().to_path_buf();
    std::fs::write(root.join(".gitignore"), ".pawl/\nbuild/\n").unwrap();
    std::fs::write(root.join("a.py"), "x=1\n").unwrap();
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/b.py"), "y = 2\n").unwrap();
    repo.commit_all("init").unwrap();
    let head = repo.head_commit().unwrap();
    // Uncommitted and untracked work, and an executable script.
    std::fs::write(root.join("a.py"), "x=1  # wip\n").unwrap();
    std::fs::write(root.join("notes.txt"), "untracked\n").unwrap();
    std::fs::write(root.join("run.sh"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let before = repo.tree_hash().unwrap();

    let backup = TreeBackup::take(&repo, &root.join(".pawl/tmp/lint-fix-1")).unwrap();
    assert_eq!(backup.tree, before);
    assert!(backup.backup_ref.starts_with("refs/pawl/backups/lint-fix/"));

    // What a "fix" might do: rewrite, delete, create, chmod; plus ignored build output.
    std::fs::write(root.join("a.py"), "x = 1  # wip\n").unwrap();
    std::fs::remove_file(root.join("pkg/b.py")).unwrap();
    std::fs::write(root.join("pkg/new.py"), "z\n").unwrap();
    std::fs::write(root.join("notes.txt"), "changed\n").unwrap();
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/out"), "ignored").unwrap();
    assert_ne!(repo.tree_hash().unwrap(), before);

    backup.restore(&repo).unwrap();
    assert_eq!(repo.tree_hash().unwrap(), before);
    assert_eq!(
        std::fs::read_to_string(root.join("a.py")).unwrap(),
        "x=1  # wip\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "untracked\n"
    );
    assert!(!root.join("pkg/new.py").exists());
    assert_eq!(
        std::fs::metadata(root.join("run.sh"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o755
    );
    assert!(
        root.join("build/out").exists(),
        "ignored files are left alone"
    );
    assert_eq!(repo.head_commit().unwrap(), head, "HEAD did not move");
    // The index was not touched: a.py is still modified-unstaged, notes.txt untracked.
    let status = repo.status().unwrap();
    assert!(
        status
            .iter()
            .any(|e| e.path.ends_with("a.py") && e.index == ' ' && e.worktree == 'M'),
        "{status:?}"
    );
    assert!(
        status
            .iter()
            .any(|e| e.path.ends_with("notes.txt") && e.is_untracked())
    );
    backup.discard().unwrap();
    assert!(!root.join(".pawl/tmp/lint-fix-1").exists());
}
