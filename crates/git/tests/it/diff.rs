//! Diff stat and changed files against the working tree, untracked files included.

use std::path::{Path, PathBuf};

use crate::TestRepo;

#[test]
fn diff_stat_counts_lines_per_file_including_untracked() {
    let t = TestRepo::new();
    t.write(".gitignore", "ignored/\n");
    t.write("a.txt", "1\n2\n3\n");
    t.write("b.txt", "keep\n");
    let base = t
        .repo
        .commit_all("base")
        .expect("commit")
        .expect("commit id");

    t.write("a.txt", "1\nTWO\n3\n4\n"); // 2 insertions, 1 deletion
    std::fs::remove_file(t.path("b.txt")).expect("rm"); // 1 deletion
    t.write("new/c.txt", "x\ny\n"); // untracked: 2 insertions
    std::fs::write(t.path("blob.bin"), [0u8, 1, 2, 0, 255]).expect("binary");
    t.write("ignored/noise.txt", "not counted\n");

    let stat = t.repo.diff_stat(&base).expect("diff stat");
    assert_eq!(stat.files_changed(), 4, "{stat:?}");
    assert_eq!((stat.insertions, stat.deletions), (4, 2));
    let a = stat
        .files
        .iter()
        .find(|f| f.path == Path::new("a.txt"))
        .expect("a.txt");
    assert_eq!((a.insertions, a.deletions, a.binary), (2, 1, false));
    let bin = stat
        .files
        .iter()
        .find(|f| f.path == Path::new("blob.bin"))
        .expect("bin");
    assert!(bin.binary);

    let mut changed = t.repo.changed_files_since(&base).expect("changed");
    changed.sort();
    let expected: Vec<PathBuf> = ["a.txt", "b.txt", "blob.bin", "new/c.txt"]
        .iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(changed, expected);
    // Measuring did not stage anything.
    assert_eq!(t.git(&["diff", "--cached", "--name-only"]), "");
}

#[test]
fn no_changes_means_an_empty_stat() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    let base = t.repo.commit_all("base").expect("commit").expect("id");
    let stat = t.repo.diff_stat(&base).expect("stat");
    assert_eq!(stat, pawl_git::DiffStat::default());
}

#[test]
fn changes_between_trees_and_the_text_of_a_blob() {
    let t = TestRepo::new();
    t.write("keep.txt", "k\n");
    t.write("edit.txt", "old\n");
    t.write("gone.txt", "g\n");
    let base = t.repo.commit_all("base").expect("commit").expect("id");
    t.write("edit.txt", "new\n");
    std::fs::remove_file(t.path("gone.txt")).expect("rm");
    t.write("tests/new_test.py", "def test_x(): assert f() == 1\n");
    let tree = t.repo.tree_hash().expect("tree");
    let mut changes = t
        .repo
        .changes_between(base.as_str(), tree.as_str())
        .expect("changes");
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    let got: Vec<(String, pawl_git::ChangeKind)> = changes
        .iter()
        .map(|c| (c.path.display().to_string(), c.kind))
        .collect();
    use pawl_git::ChangeKind::*;
    assert_eq!(
        got,
        vec![
            ("edit.txt".into(), Modified),
            ("gone.txt".into(), Deleted),
            ("tests/new_test.py".into(), Added)
        ]
    );
    let old = t.repo.blob_text(base.as_str(), Path::new("edit.txt"), 1024);
    assert_eq!(old.expect("read").as_deref(), Some("old\n"));
    let absent = t
        .repo
        .blob_text(base.as_str(), Path::new("tests/new_test.py"), 1024);
    assert_eq!(absent.expect("read"), None);
    let too_big = t.repo.blob_text(tree.as_str(), Path::new("edit.txt"), 2);
    assert_eq!(too_big.expect("read"), None);
}

#[test]
fn an_overlay_is_the_base_with_the_new_files() {
    let t = TestRepo::new();
    t.write("src.txt", "before\n");
    let base = t.repo.commit_all("base").expect("commit").expect("id");
    t.write("src.txt", "after\n");
    t.write("tests/t.sh", "test \"$(cat src.txt)\" = after\n");
    let tree = t.repo.tree_hash().expect("tree");
    let overlay = t
        .repo
        .overlay_tree(base.as_str(), tree.as_str(), &[PathBuf::from("tests/t.sh")])
        .expect("overlay");
    let changes = t
        .repo
        .changes_between(base.as_str(), overlay.as_str())
        .expect("changes");
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].path, PathBuf::from("tests/t.sh"));
    // The overlay keeps the base's source.
    let src = t
        .repo
        .blob_text(overlay.as_str(), Path::new("src.txt"), 1024);
    assert_eq!(src.expect("read").as_deref(), Some("before\n"));
    // Nothing was staged in the real index.
    assert_eq!(t.git(&["diff", "--cached", "--name-only"]), "");
}
