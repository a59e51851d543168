//! A process that keeps tree stamps (`pawl_git::remember_tree_stamps`, the headless driver)
//! answers an unchanged tree from memory, and asks git again as soon as anything hashed changed.
//! A test binary of its own: keeping stamps is the whole process's setting, and the `it` tests
//! count the git processes a hash runs.

#![allow(clippy::expect_used)]

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use pawl_git::{Options, Repo};

fn options(home: &Path) -> Options {
    let global = home.join("gitconfig");
    std::fs::write(
        &global,
        "[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n",
    )
    .expect("config");
    Options {
        env: vec![
            (OsString::from("HOME"), home.as_os_str().to_owned()),
            (
                OsString::from("XDG_CONFIG_HOME"),
                home.as_os_str().to_owned(),
            ),
            (OsString::from("GIT_CONFIG_GLOBAL"), global.into_os_string()),
        ],
        ..Options::default()
    }
}

fn write(root: &Path, rel: &str, content: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, content).expect("write");
}

#[test]
fn a_process_that_keeps_stamps_answers_only_an_unchanged_tree_from_memory() {
    pawl_git::remember_tree_stamps();
    let home = tempfile::tempdir().expect("home");
    let work = tempfile::tempdir().expect("work");
    let opts = options(home.path());
    let repo = Repo::init(work.path(), opts.clone()).expect("init");
    let root = repo.root().to_path_buf();
    write(&root, ".gitignore", "node_modules/\n");
    write(&root, "src/main.py", "print(1)\n");
    write(&root, "node_modules/pkg/index.js", "1\n");
    std::thread::sleep(Duration::from_millis(60));
    let first = repo.tree_hash().expect("hash");
    // `tree_hash_stamped` always asks git.
    assert_eq!(first, repo.tree_hash_stamped().expect("hash").0);
    // The same tree through a git that does not exist: answered from memory.
    let no_git = Repo::open_with(
        &root,
        Options {
            program: "/nonexistent/git".into(),
            ..opts
        },
    )
    .expect("opened without git");
    assert_eq!(no_git.tree_hash().expect("from memory"), first);
    // A new untracked file: git is asked again (and the one that does not exist fails).
    write(&root, "src/new.py", "Y = 2\n");
    assert!(no_git.tree_hash().is_err());
    let second = repo.tree_hash().expect("hash");
    assert_ne!(second, first);
    assert_eq!(second, repo.tree_hash_stamped().expect("hash").0);
    // A same-size edit of a settled file is seen too.
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(repo.tree_hash().expect("hash"), second);
    write(&root, "src/main.py", "print(2)\n");
    let third = repo.tree_hash().expect("hash");
    assert_ne!(third, second);
    assert_eq!(third, repo.tree_hash_stamped().expect("hash").0);
    // An ignored directory's contents are not the tree's: still answered from memory.
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(repo.tree_hash().expect("hash"), third);
    write(&root, "node_modules/pkg/other.js", "2\n");
    assert_eq!(no_git.tree_hash().expect("from memory"), third);
}
