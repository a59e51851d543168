//! A checkout outside the repository: the tree's exact bytes, and nothing the repository
//! configures runs while it is written.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use pawl_git::Checkout;

use crate::TestRepo;

struct Room {
    dir: tempfile::TempDir,
}

impl Room {
    fn new() -> Room {
        let dir = tempfile::tempdir().expect("room");
        std::fs::create_dir(dir.path().join("tree")).expect("tree");
        Room { dir }
    }

    fn checkout(&self, t: &TestRepo) -> Checkout {
        let d = self.dir.path();
        t.repo
            .checkout_into(d.join("tree"), d.join("git"), d.join("index"))
            .expect("checkout")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join("tree").join(rel)
    }
}

/// A repository with attributes that name a filter, line-ending and `ident` conversions.
fn repo_with_attributes() -> TestRepo {
    let t = TestRepo::new();
    t.write(
        ".gitattributes",
        "*.x filter=evil\n*.txt text eol=crlf\nid.txt ident\n",
    );
    t.write("f.x", "secret\n");
    t.write("t.txt", "a\nb\n");
    t.write("id.txt", "$Id$\n");
    t
}

/// Makes the repository's config, hooks and info/attributes run programs on a checkout, each
/// writing a marker file into `markers`. (Done after hashing: pawl's tree hash is not this
/// test's subject.)
fn make_hostile(t: &TestRepo, markers: &Path) {
    let m = markers.display();
    t.git(&[
        "config",
        "filter.evil.smudge",
        &format!("touch {m}/smudge; cat"),
    ]);
    t.git(&["config", "filter.evil.clean", "cat"]);
    t.git(&[
        "config",
        "filter.evil.process",
        &format!("touch {m}/process"),
    ]);
    let script = |name: &str, path: &Path| {
        std::fs::write(path, format!("#!/bin/sh\ntouch {m}/{name}\n")).expect("script");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    script("fsmonitor", &markers.join("fsmonitor.sh"));
    t.git(&["config", "core.fsmonitor", &format!("{m}/fsmonitor.sh")]);
    script("hook", &t.path(".git/hooks/post-checkout"));
    t.write(".git/info/attributes", "*.txt filter=evil\n");
}

fn markers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("markers")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "fsmonitor.sh")
        .collect();
    names.sort();
    names
}

#[test]
fn a_checkout_runs_no_filter_fsmonitor_or_hook_and_writes_the_trees_bytes() {
    let m = tempfile::tempdir().expect("markers");
    let t = repo_with_attributes();
    let tree = t.repo.tree_hash().expect("hash");
    make_hostile(&t, m.path());

    let room = Room::new();
    let checkout = room.checkout(&t);
    checkout.reset_to(&tree).expect("reset");
    checkout.modified().expect("modified");
    checkout.clean().expect("clean");

    assert_eq!(markers(m.path()), Vec::<String>::new(), "a program ran");
    for (file, blob) in [("f.x", "f.x"), ("t.txt", "t.txt"), ("id.txt", "id.txt")] {
        let want = t.git(&["cat-file", "blob", &format!("{tree}:{blob}")]);
        let got = std::fs::read_to_string(room.path(file)).expect("file");
        assert_eq!(got, want, "{file}");
    }
    assert_eq!(
        std::fs::read_to_string(room.path("t.txt")).expect("t"),
        "a\nb\n"
    );

    // The attack is real: git's own checkout in the repository runs the repository's programs.
    std::fs::remove_file(t.path("f.x")).expect("rm");
    let _ = std::process::Command::new("git")
        .args(["checkout", "--", "f.x"])
        .current_dir(t.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output();
    assert_ne!(markers(m.path()), Vec::<String>::new());
}

#[test]
fn reset_touches_only_what_changed_and_clean_keeps_ignored_files() {
    let t = TestRepo::new();
    t.write(".gitignore", "target/\n");
    t.write("a.txt", "a\n");
    t.write("b.txt", "b\n");
    let first = t.repo.tree_hash().expect("hash");
    let room = Room::new();
    let checkout = room.checkout(&t);
    checkout.reset_to(&first).expect("reset");
    assert_eq!(checkout.entries().expect("entries"), 3);

    std::fs::create_dir_all(room.path("target")).expect("target");
    std::fs::write(room.path("target/out"), "built\n").expect("out");
    std::fs::write(room.path("leftover.txt"), "x\n").expect("leftover");
    let b_inode = inode(&room.path("b.txt"));

    t.write("a.txt", "changed\n");
    let second = t.repo.tree_hash().expect("hash");
    let survey = checkout.survey_and_clean(&first, &second).expect("survey");
    assert_eq!(
        (survey.modified.len(), survey.removed, survey.changed),
        (0, 1, vec![PathBuf::from("a.txt")])
    );
    checkout.update_to(&second).expect("update");

    assert_eq!(read(&room.path("a.txt")), "changed\n");
    assert_eq!(inode(&room.path("b.txt")), b_inode);
    assert_eq!(read(&room.path("target/out")), "built\n");
    assert!(!room.path("leftover.txt").exists());

    std::fs::write(room.path("b.txt"), "tampered\n").expect("tamper");
    assert_eq!(
        checkout.modified().expect("modified"),
        vec![PathBuf::from("b.txt")]
    );
    checkout.reset_to(&second).expect("reset");
    assert_eq!(read(&room.path("b.txt")), "b\n");
}

#[test]
fn the_checks_see_a_repository_of_the_checked_out_tree() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    let tree = t.repo.tree_hash().expect("hash");
    let room = Room::new();
    let checkout = room.checkout(&t);
    checkout.reset_to(&tree).expect("reset");
    checkout.expose_to_checks().expect("expose");
    let out = std::process::Command::new("git")
        .args(["ls-files", "--stage"])
        .current_dir(room.path(""))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(text.ends_with("\ta.txt\n"), "{text}");
    // `git status` answers about the checked-out tree from the index alone.
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(room.path(""))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(status.status.success(), "{status:?}");
}

/// Issue 31: code under test in the room followed `.git/objects/info/alternates` back to the
/// live repository and read its ignored files. The checks' `.git` names nothing outside the
/// room: no alternates, no path of the repository anywhere in it.
#[test]
fn the_checks_git_has_no_way_back_to_the_repository() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.write(".env", "SECRET=1\n");
    let tree = t.repo.tree_hash().expect("hash");
    let room = Room::new();
    let checkout = room.checkout(&t);
    checkout.reset_to(&tree).expect("reset");
    checkout.expose_to_checks().expect("expose");
    // The attack, as a check would run it: read the alternates, walk up to the work tree.
    let alternates = room.path(".git/objects/info/alternates");
    let leaked = std::fs::read_to_string(&alternates).ok().and_then(|line| {
        let objects = PathBuf::from(line.trim());
        std::fs::read_to_string(objects.parent()?.parent()?.join(".env")).ok()
    });
    assert_eq!(leaked, None, "a check read the live repository's .env");
    let root = t.root().to_string_lossy().into_owned();
    for entry in walk(&room.path(".git")) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(&root),
            "{} names the repository",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).expect("read")
}

fn inode(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).expect("meta").ino()
}

#[test]
fn a_linked_worktree_checks_out_from_the_common_object_directory() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.repo
        .commit_all("one")
        .expect("commit")
        .expect("something");
    let wt = tempfile::tempdir().expect("wt");
    let path = wt.path().join("linked");
    t.git(&["worktree", "add", "-q", path.to_str().expect("utf8")]);
    let linked = pawl_git::Repo::open_with(&path, t.options()).expect("open");
    std::fs::write(path.join("b.txt"), "b\n").expect("write");
    let tree = linked.tree_hash().expect("hash");
    let room = Room::new();
    let d = room.dir.path();
    let checkout = linked
        .checkout_into(d.join("tree"), d.join("git"), d.join("index"))
        .expect("checkout");
    checkout.reset_to(&tree).expect("reset");
    assert_eq!(read(&room.path("a.txt")), "a\n");
    assert_eq!(read(&room.path("b.txt")), "b\n");
}
