//! Branch heads, containment, patches, worktrees, merges computed in the object store, and ref
//! moves that git checks against the value they expect.

use std::path::PathBuf;

use pawl_git::{MergeTree, Repo};

use crate::TestRepo;

/// `main` with one commit, and `feature` one commit ahead of it.
fn forked() -> (TestRepo, pawl_git::CommitId, pawl_git::CommitId) {
    let t = TestRepo::new();
    t.write("a.txt", "1\n2\n3\n");
    let base = t.repo.commit_all("base").expect("commit").expect("id");
    t.git(&["switch", "-q", "-c", "feature"]);
    t.write("a.txt", "1\n2\n3\n4\n");
    let ahead = t.repo.commit_all("four").expect("commit").expect("id");
    (t, base, ahead)
}

#[test]
fn branch_heads_and_which_branches_contain_a_commit() {
    let (t, base, ahead) = forked();
    assert_eq!(
        t.repo.branch_head("main").expect("head"),
        Some(base.clone())
    );
    assert_eq!(
        t.repo.branch_head("feature").expect("head"),
        Some(ahead.clone())
    );
    assert_eq!(t.repo.branch_head("nope").expect("head"), None);
    let mut names: Vec<String> = t
        .repo
        .local_branches()
        .expect("branches")
        .into_iter()
        .map(|b| b.name)
        .collect();
    names.sort();
    assert_eq!(names, ["feature", "main"]);
    let mut with_base = t.repo.branches_containing(&base).expect("contains");
    with_base.sort();
    assert_eq!(with_base, ["feature", "main"]);
    assert_eq!(
        t.repo.branches_containing(&ahead).expect("contains"),
        ["feature"]
    );
    assert!(t.repo.is_ancestor(&base, &ahead).expect("ancestry"));
    assert!(!t.repo.is_ancestor(&ahead, &base).expect("ancestry"));
    assert_eq!(t.repo.resolve_commit("feature").expect("resolve"), ahead);
    assert_eq!(
        t.repo.tree_of("feature").expect("tree").as_str(),
        t.git(&["rev-parse", "feature^{tree}"]).trim()
    );
}

#[test]
fn the_patch_between_a_commit_and_a_tree_is_gits_own() {
    let (t, base, ahead) = forked();
    let patch = t
        .repo
        .diff_patch(base.as_str(), ahead.as_str())
        .expect("patch");
    let text = String::from_utf8(patch).expect("utf8");
    assert!(text.contains("+++ b/a.txt"), "{text}");
    assert!(text.contains("\n+4\n"), "{text}");
    assert_eq!(text, t.git(&["diff", base.as_str(), ahead.as_str()]));
}

#[test]
fn a_clean_merge_is_computed_without_touching_the_working_tree() {
    let (t, base, ahead) = forked();
    t.git(&["switch", "-q", "main"]);
    t.write("b.txt", "other\n");
    let main = t.repo.commit_all("b").expect("commit").expect("id");
    let MergeTree::Clean(tree) = t.repo.merge_tree(&main, &ahead).expect("merge") else {
        panic!("conflicts where there are none");
    };
    let merge = t
        .repo
        .commit_tree(&tree, &[&main, &ahead], "merge feature")
        .expect("commit tree");
    // Nothing moved: main, the index and the files are as they were.
    assert_eq!(
        t.repo.branch_head("main").expect("head"),
        Some(main.clone())
    );
    assert_eq!(t.read("a.txt").as_deref(), Some("1\n2\n3\n"));
    assert_eq!(t.git(&["status", "--porcelain"]), "");
    assert_eq!(t.git(&["show", &format!("{merge}:a.txt")]), "1\n2\n3\n4\n");
    assert_eq!(t.git(&["show", &format!("{merge}:b.txt")]), "other\n");
    assert!(t.repo.is_ancestor(&base, &merge).expect("ancestry"));
    // The checked-out main fast-forwards to it.
    t.repo.fast_forward_checked_out(&merge).expect("ff");
    assert_eq!(t.repo.branch_head("main").expect("head"), Some(merge));
    assert_eq!(t.read("a.txt").as_deref(), Some("1\n2\n3\n4\n"));
}

#[test]
fn a_conflicting_merge_names_the_paths() {
    let (t, _, ahead) = forked();
    t.git(&["switch", "-q", "main"]);
    t.write("a.txt", "1\n2\n3\nfour\n");
    let main = t
        .repo
        .commit_all("other four")
        .expect("commit")
        .expect("id");
    assert_eq!(
        t.repo.merge_tree(&main, &ahead).expect("merge"),
        MergeTree::Conflicts(vec![PathBuf::from("a.txt")])
    );
    assert_eq!(t.git(&["status", "--porcelain"]), "");
}

#[test]
fn worktrees_are_listed_with_their_branch_and_removed_whatever_they_hold() {
    let (t, base, _) = forked();
    let outside = tempfile::tempdir().expect("dir");
    let path = outside.path().join("wt");
    t.repo.add_worktree(&path, &base).expect("add");
    assert_eq!(
        std::fs::read_to_string(path.join("a.txt")).expect("checked out"),
        "1\n2\n3\n"
    );
    let trees = t.repo.worktrees().expect("list");
    assert_eq!(trees.len(), 2, "{trees:?}");
    assert_eq!(trees[0].branch.as_deref(), Some("feature"));
    assert_eq!(trees[1].branch, None, "detached");
    // The worktree's tree hash is the commit's tree: what verification binds evidence to.
    let opened = Repo::open_with(&path, t.options()).expect("open worktree");
    assert_eq!(
        opened.tree_hash().expect("hash"),
        t.repo.tree_of(base.as_str()).expect("tree")
    );
    std::fs::write(path.join("junk.txt"), "x").expect("write");
    t.repo.remove_worktree(&path).expect("remove");
    assert!(!path.exists());
    assert_eq!(t.repo.worktrees().expect("list").len(), 1);
}

#[test]
fn ref_moves_are_refused_when_the_branch_moved_meanwhile() {
    let (t, base, ahead) = forked();
    t.git(&["switch", "-q", "--detach"]);
    // main is at base: moving it "from ahead" is refused, from base succeeds.
    assert!(t.repo.move_branch("main", &ahead, &ahead, "test").is_err());
    t.repo
        .move_branch("main", &ahead, &base, "test")
        .expect("move");
    assert_eq!(
        t.repo.branch_head("main").expect("head"),
        Some(ahead.clone())
    );
    assert!(t.repo.delete_branch("feature", &base).is_err());
    assert!(t.repo.branch_head("feature").expect("head").is_some());
    t.repo.delete_branch("feature", &ahead).expect("delete");
    assert_eq!(t.repo.branch_head("feature").expect("head"), None);
}

#[test]
fn ignored_paths_are_named_whether_or_not_they_exist() {
    let t = TestRepo::new();
    t.write(".gitignore", "target/\n*.log\n");
    let ignored = t
        .repo
        .ignored(&["target/", "node_modules/", "build.log"])
        .expect("check-ignore");
    assert_eq!(ignored, ["target/", "build.log"]);
    assert!(t.repo.ignored(&["src/"]).expect("none").is_empty());
}
