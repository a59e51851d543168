//! The tree hash follows exactly the checked bytes, and never touches the real index.

use std::os::unix::fs::PermissionsExt;

use crate::TestRepo;

/// The id of git's empty tree (SHA-1 repositories).
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

fn committed_repo() -> TestRepo {
    let t = TestRepo::new();
    t.write(".gitignore", "target/\n*.log\n");
    t.write("src/main.rs", "fn main() {}\n");
    t.write("README", "hello\n");
    t.repo
        .commit_all("initial")
        .expect("commit")
        .expect("something to commit");
    t
}

#[test]
fn works_without_commits_and_without_index() {
    let t = TestRepo::new();
    assert_eq!(t.repo.tree_hash().expect("hash").as_str(), EMPTY_TREE);
    t.write("a.txt", "a\n");
    let with_file = t.repo.tree_hash().expect("hash");
    assert_ne!(with_file.as_str(), EMPTY_TREE);
    // The real index still does not exist: nothing was staged.
    assert!(!t.repo.index_path().exists());
    assert_eq!(t.git(&["ls-files"]), "");
}

#[test]
fn equals_the_tree_git_would_commit() {
    let t = committed_repo();
    let head_tree = t.git(&["rev-parse", "HEAD^{tree}"]);
    assert_eq!(t.repo.tree_hash().expect("hash").as_str(), head_tree.trim());
}

#[test]
fn stable_when_nothing_changes() {
    let t = committed_repo();
    t.write("untracked.txt", "u\n");
    let first = t.repo.tree_hash().expect("hash");
    assert_eq!(t.repo.tree_hash().expect("hash"), first);
}

#[test]
fn one_byte_in_a_tracked_file_changes_it_and_reverting_restores_it() {
    let t = committed_repo();
    let before = t.repo.tree_hash().expect("hash");
    t.write("src/main.rs", "fn main() {}\r");
    let changed = t.repo.tree_hash().expect("hash");
    assert_ne!(changed, before);
    t.write("src/main.rs", "fn main() {}\n");
    assert_eq!(t.repo.tree_hash().expect("hash"), before);
}

#[test]
fn an_untracked_file_changes_it() {
    let t = committed_repo();
    let before = t.repo.tree_hash().expect("hash");
    t.write("src/new.rs", "pub fn f() {}\n");
    assert_ne!(t.repo.tree_hash().expect("hash"), before);
}

#[test]
fn a_deleted_file_and_an_executable_bit_change_it() {
    let t = committed_repo();
    let before = t.repo.tree_hash().expect("hash");
    let path = t.path("README");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let executable = t.repo.tree_hash().expect("hash");
    assert_ne!(executable, before);
    std::fs::remove_file(&path).expect("rm");
    let deleted = t.repo.tree_hash().expect("hash");
    assert_ne!(deleted, before);
    assert_ne!(deleted, executable);
}

#[test]
fn ignored_files_do_not_change_it() {
    let t = committed_repo();
    t.write("target/debug/out.bin", "one\n");
    let before = t.repo.tree_hash().expect("hash");
    t.write("target/debug/out.bin", "two\n");
    t.write("build.log", "noise\n");
    assert_eq!(t.repo.tree_hash().expect("hash"), before);
}

#[test]
fn real_index_is_untouched_even_with_staged_changes() {
    let t = committed_repo();
    // Stage one version, then change the file again and add an untracked one: the user's
    // staging must survive byte for byte.
    t.write("README", "staged\n");
    t.git(&["add", "README"]);
    t.write("README", "working copy\n");
    t.write("extra.txt", "x\n");
    let index = t.repo.index_path().to_owned();
    let bytes_before = std::fs::read(&index).expect("index");
    let mtime_before = std::fs::metadata(&index)
        .expect("meta")
        .modified()
        .expect("mtime");
    let staged_before = t.git(&["diff", "--cached", "--name-only"]);

    let hash = t.repo.tree_hash().expect("hash");

    assert_eq!(std::fs::read(&index).expect("index"), bytes_before);
    assert_eq!(
        std::fs::metadata(&index)
            .expect("meta")
            .modified()
            .expect("mtime"),
        mtime_before
    );
    assert_eq!(t.git(&["diff", "--cached", "--name-only"]), staged_before);
    assert_eq!(
        t.git(&["status", "--porcelain", "--", "extra.txt"]),
        "?? extra.txt\n"
    );
    // The hash is of the working copy, not of the staged version.
    let blob = t.git(&["rev-parse", &format!("{hash}:README")]);
    let expected = t.git(&["hash-object", "README"]);
    assert_eq!(blob, expected);
    // No temporary index is left behind in the git dir.
    let leftovers: Vec<_> = std::fs::read_dir(t.repo.git_dir())
        .expect("git dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("pawl-index-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
