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
