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

/// The in-process index reader lists what `git ls-files` lists, in every index version, with
/// intent-to-add entries (extended flags), unmerged paths (three stages, listed once),
/// non-ASCII names and a linked worktree's own index.
#[test]
fn index_paths_match_ls_files_in_every_index_version() {
    let t = TestRepo::new();
    for (i, name) in ["a.txt", "dir/b.rs", "dir/sub/c d.md", "été/ü.txt", "z"]
        .iter()
        .enumerate()
    {
        t.write(name, &format!("{i}\n"));
    }
    t.git(&["add", "-A"]);
    t.git(&["commit", "-q", "-m", "one"]);
    // An unmerged path: stages 1, 2 and 3 of `dir/b.rs`.
    t.git(&["checkout", "-q", "-b", "other"]);
    t.write("dir/b.rs", "other\n");
    t.git(&["commit", "-q", "-am", "other"]);
    t.git(&["checkout", "-q", "main"]);
    t.write("dir/b.rs", "main\n");
    t.git(&["commit", "-q", "-am", "main"]);
    let out = std::process::Command::new("git")
        .args(["merge", "-q", "other"])
        .current_dir(t.root())
        .env("HOME", t.home.path())
        .env("GIT_CONFIG_GLOBAL", t.home.path().join("gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git merge runs");
    assert!(!out.status.success(), "the merge conflicts");
    t.write("new.txt", "n\n");
    t.git(&["add", "-N", "new.txt"]);
    let git_dir = t.root().join(".git");
    for version in ["2", "3", "4"] {
        t.git(&["update-index", "--index-version", version]);
        let listed = t.git(&["ls-files", "-z", "--full-name", "--", ":/"]);
        // ls-files lists an unmerged path once per stage; the reader lists each path once.
        let mut want: Vec<&str> = listed.split('\0').filter(|s| !s.is_empty()).collect();
        want.dedup();
        let got = pawl_git::index_paths(&git_dir).expect("readable index");
        assert_eq!(got, want, "index version {version}");
    }
    // A linked worktree reads its own index.
    t.git(&["worktree", "add", "-q", "wt", "HEAD"]);
    let wt_git = t.root().join(".git/worktrees/wt");
    let got = pawl_git::index_paths(&wt_git).expect("readable worktree index");
    assert!(got.contains(&"dir/sub/c d.md".to_string()), "{got:?}");
    assert!(!got.contains(&"new.txt".to_string()), "{got:?}");
}

#[test]
fn index_paths_refuse_what_they_cannot_read() {
    let t = TestRepo::new();
    t.write("a", "a\n");
    t.git(&["add", "a"]);
    let git_dir = t.root().join(".git");
    let bytes = std::fs::read(git_dir.join("index")).expect("index");
    // Every truncation is refused, never misread.
    for cut in [1, 4, 12, 30, bytes.len() - 21] {
        std::fs::write(git_dir.join("index"), &bytes[..cut]).expect("write");
        assert_eq!(pawl_git::index_paths(&git_dir), None, "cut at {cut}");
    }
    // No index yet: nothing is tracked.
    std::fs::remove_file(git_dir.join("index")).expect("rm");
    assert_eq!(pawl_git::index_paths(&git_dir), Some(Vec::new()));
    // A split index keeps entries in another file: git must answer.
    std::fs::write(git_dir.join("index"), &bytes).expect("write");
    t.git(&["update-index", "--split-index"]);
    assert_eq!(pawl_git::index_paths(&git_dir), None);
}
