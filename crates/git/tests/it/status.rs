//! Status, dirtiness and tracked files.

use std::path::PathBuf;

use crate::TestRepo;

#[test]
fn clean_then_dirty_by_untracked_modified_and_staged() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    assert!(
        t.repo.is_dirty().expect("status"),
        "untracked file in a fresh repo"
    );
    t.repo.commit_all("one").expect("commit");
    assert!(!t.repo.is_dirty().expect("status"));

    t.write("dir/deep/new.txt", "n\n");
    assert!(t.repo.is_dirty().expect("status"));
    std::fs::remove_dir_all(t.path("dir")).expect("rm");
    assert!(!t.repo.is_dirty().expect("status"));

    t.write("a.txt", "changed\n");
    assert!(t.repo.is_dirty().expect("status"));
}

#[test]
fn ignored_files_are_not_dirt() {
    let t = TestRepo::new();
    t.write(".gitignore", "*.tmp\n");
    t.repo.commit_all("ignore").expect("commit");
    t.write("scratch.tmp", "x\n");
    assert!(!t.repo.is_dirty().expect("status"));
    assert!(t.repo.status().expect("status").is_empty());
}

#[test]
fn status_lists_each_entry_with_its_codes() {
    let t = TestRepo::new();
    t.write("keep.txt", "k\n");
    t.write("gone.txt", "g\n");
    t.write("old name.txt", "same content for rename detection\n");
    t.repo.commit_all("base").expect("commit");
    t.write("keep.txt", "modified\n");
    std::fs::remove_file(t.path("gone.txt")).expect("rm");
    t.git(&["mv", "old name.txt", "new name.txt"]);
    t.write("sub/untracked.txt", "u\n");

    let mut entries = t.repo.status().expect("status");
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let summary: Vec<(char, char, PathBuf, Option<PathBuf>)> = entries
        .into_iter()
        .map(|e| (e.index, e.worktree, e.path, e.orig_path))
        .collect();
    assert_eq!(
        summary,
        vec![
            (' ', 'D', "gone.txt".into(), None),
            (' ', 'M', "keep.txt".into(), None),
            ('R', ' ', "new name.txt".into(), Some("old name.txt".into())),
            ('?', '?', "sub/untracked.txt".into(), None),
        ]
    );
}

#[test]
fn tracked_files_and_is_tracked() {
    let t = TestRepo::new();
    t.write("src/lib.rs", "\n");
    t.write("weird [name].txt", "\n");
    t.repo.commit_all("files").expect("commit");
    t.write("untracked.rs", "\n");

    let mut files = t.repo.tracked_files().expect("ls-files");
    files.sort();
    assert_eq!(
        files,
        vec![
            PathBuf::from("src/lib.rs"),
            PathBuf::from("weird [name].txt")
        ]
    );
    assert!(t.repo.is_tracked("src/lib.rs").expect("query"));
    assert!(
        t.repo
            .is_tracked(t.path("src/lib.rs"))
            .expect("absolute path")
    );
    assert!(
        t.repo
            .is_tracked("src")
            .expect("directory with tracked files")
    );
    assert!(
        t.repo
            .is_tracked("weird [name].txt")
            .expect("literal, not a glob")
    );
    assert!(
        !t.repo
            .is_tracked("weird n.txt")
            .expect("a glob would have matched this")
    );
    assert!(!t.repo.is_tracked("untracked.rs").expect("query"));
    assert!(!t.repo.is_tracked("missing.rs").expect("query"));
}
