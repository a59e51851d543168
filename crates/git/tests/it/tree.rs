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

/// A repository opened through a git wrapper that logs each subcommand, so a test can tell which
/// git processes a call needed (and hence which shortcut it took).
struct Logged {
    t: TestRepo,
    repo: pawl_git::Repo,
    log: std::path::PathBuf,
    _bin: tempfile::TempDir,
}

impl Logged {
    fn new(t: TestRepo) -> Logged {
        let bin = tempfile::tempdir().expect("bin");
        let log = bin.path().join("calls.log");
        let wrapper = bin.path().join("git");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nskip=0\nfor a in \"$@\"; do if [ $skip = 1 ]; then skip=0; continue; fi; case \"$a\" in -c) skip=1 ;; --no-pager) ;; *) echo \"$a\" >> '{}'; break;; esac; done\nexec git \"$@\"\n",
                log.display()
            ),
        )
        .expect("wrapper");
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let mut options = t.options();
        options.program = wrapper.into_os_string();
        let repo = pawl_git::Repo::open_with(t.root(), options).expect("open");
        Logged {
            t,
            repo,
            log,
            _bin: bin,
        }
    }

    /// The subcommands run since the last call.
    fn calls(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.log);
        text.lines().map(str::to_owned).collect()
    }

    /// What `git add -A` + `git write-tree` in a fresh copy of the index answer: the reference.
    fn reference(&self) -> String {
        let dir = tempfile::tempdir().expect("dir");
        let index = dir.path().join("index");
        if self.repo.index_path().exists() {
            // With the original's mtime: git's racy-clean rule compares entries against it (a
            // plain copy trusts stat data it must not, and this reference was wrong that way).
            std::fs::copy(self.repo.index_path(), &index).expect("copy");
            let mtime = std::fs::metadata(self.repo.index_path())
                .and_then(|m| m.modified())
                .expect("mtime");
            std::fs::File::options()
                .write(true)
                .open(&index)
                .and_then(|f| f.set_modified(mtime))
                .expect("set mtime");
        }
        let idx = index.to_str().expect("utf8");
        self.t
            .git_env(&["add", "--all", "--", ":/"], &[("GIT_INDEX_FILE", idx)]);
        self.t
            .git_env(&["write-tree"], &[("GIT_INDEX_FILE", idx)])
            .trim()
            .to_owned()
    }
}

/// [`committed_repo`] whose files are older than its index: no entry is "racily clean" (an entry
/// as new as the index must be re-read, and git then drops the cache tree).
fn settled_repo() -> TestRepo {
    let t = TestRepo::new();
    t.write(".gitignore", "target/\n*.log\n");
    t.write("src/main.rs", "fn main() {}\n");
    t.write("README", "hello\n");
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    for f in [".gitignore", "src/main.rs", "README"] {
        std::fs::File::options()
            .write(true)
            .open(t.path(f))
            .and_then(|f| f.set_modified(past))
            .expect("set mtime");
    }
    t.repo
        .commit_all("initial")
        .expect("commit")
        .expect("something to commit");
    t
}

#[test]
fn a_plain_repository_opens_without_git_and_a_clean_tree_hashes_as_git_does() {
    let l = Logged::new(settled_repo());
    assert_eq!(l.calls(), Vec::<String>::new(), "open ran git");
    assert_eq!(
        l.repo.root(),
        std::fs::canonicalize(l.t.root()).expect("canonical")
    );
    assert_eq!(l.repo.git_dir(), l.repo.root().join(".git"));
    assert_eq!(l.repo.index_path(), l.repo.root().join(".git/index"));
    let head_tree = l.t.git(&["rev-parse", "HEAD^{tree}"]);
    assert_eq!(l.repo.tree_hash().expect("hash").as_str(), head_tree.trim());
    // The private index is dated so that git compares every file's content (`copy_racy`):
    // its cache tree does not survive the `add`, and `write-tree` answers.
    assert_eq!(l.calls(), ["add", "write-tree"]);
}

#[test]
fn a_changed_tree_still_asks_write_tree_and_matches_git() {
    let l = Logged::new(committed_repo());
    l.calls();
    l.t.write("src/main.rs", "fn main() { changed() }\n");
    l.t.write("new.txt", "new\n");
    let hash = l.repo.tree_hash().expect("hash");
    assert_eq!(l.calls(), ["add", "write-tree"]);
    assert_eq!(hash.as_str(), l.reference());
}

/// The regression the shortcut must never cause: a same-size, one-byte edit right after a hash
/// that was answered from the cache tree (same second, stat data that may look unchanged)
/// changes the hash, and the hash is git's. Both with a settled index (the shortcut answers
/// the clean tree) and with a racy one (git re-reads everything).
#[test]
fn a_same_size_edit_within_the_same_second_changes_the_hash() {
    for (kind, t) in [("settled", settled_repo()), ("racy", committed_repo())] {
        let l = Logged::new(t);
        let head_tree = l.t.git(&["rev-parse", "HEAD^{tree}"]).trim().to_owned();
        for round in 0..5 {
            l.calls();
            let clean = l.repo.tree_hash().expect("hash");
            assert_eq!(clean.as_str(), head_tree, "{kind} {round}");
            if kind == "settled" && round == 0 {
                assert_eq!(l.calls(), ["add", "write-tree"], "contents compared");
            }
            l.t.write("src/main.rs", "fn main() {]\n");
            let one_byte = l.repo.tree_hash().expect("hash");
            assert_ne!(one_byte, clean, "{kind} {round}");
            assert_eq!(one_byte.as_str(), l.reference(), "{kind} {round}");
            l.t.write("src/main.rs", &format!("fn main() {{ {round} }}\n"));
            let edited = l.repo.tree_hash().expect("hash");
            assert_ne!(edited, one_byte, "{kind} {round}");
            assert_eq!(edited.as_str(), l.reference(), "{kind} {round}");
            l.t.write("src/main.rs", "fn main() {}\n");
        }
    }
}

#[test]
fn the_shortcut_agrees_with_git_for_index_v4_and_staged_changes() {
    let l = Logged::new(committed_repo());
    l.t.git(&["update-index", "--index-version", "4"]);
    let head_tree = l.t.git(&["rev-parse", "HEAD^{tree}"]);
    assert_eq!(l.repo.tree_hash().expect("hash").as_str(), head_tree.trim());
    l.calls();
    // Staged then reverted in the working tree: the real index's cache tree is invalid.
    l.t.write("README", "staged\n");
    l.t.git(&["add", "README"]);
    l.t.write("README", "hello\n");
    assert_eq!(l.repo.tree_hash().expect("hash").as_str(), head_tree.trim());
    assert_eq!(l.calls(), ["add", "write-tree"]);
}

#[test]
fn a_linked_worktree_opens_through_rev_parse() {
    let t = committed_repo();
    let wt = tempfile::tempdir().expect("wt");
    let path = wt.path().join("linked");
    t.git(&["worktree", "add", "-q", path.to_str().expect("utf8")]);
    let repo = pawl_git::Repo::open_with(&path, t.options()).expect("open");
    assert_eq!(
        repo.root(),
        std::fs::canonicalize(&path).expect("canonical")
    );
    assert_ne!(repo.git_dir(), repo.root().join(".git"));
    let head_tree = t.git(&["rev-parse", "HEAD^{tree}"]);
    assert_eq!(repo.tree_hash().expect("hash").as_str(), head_tree.trim());
}

#[test]
fn a_repository_with_core_worktree_opens_through_rev_parse() {
    let t = committed_repo();
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    t.git(&[
        "config",
        "core.worktree",
        elsewhere.path().to_str().expect("utf8"),
    ]);
    let repo = pawl_git::Repo::open_with(t.path(".git"), t.options()).expect("open");
    assert_eq!(
        repo.root(),
        std::fs::canonicalize(elsewhere.path()).expect("canonical")
    );
}

/// Regression (issue "sealed verification"): a clean filter or an fsmonitor the repository
/// configures (an agent can write `.git/config` and `.gitattributes`) ran inside pawl's own
/// tree hash. Now neither runs, and the hash is of the bytes as they are.
#[test]
fn the_tree_hash_runs_no_filter_and_no_fsmonitor_the_repository_configures() {
    let t = TestRepo::new();
    t.write("a.txt", "real\n");
    t.repo.commit_all("base").expect("commit");
    let outside = tempfile::tempdir().expect("outside");
    let marker = outside.path().join("ran");
    let script = outside.path().join("evil.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$0 $* $(cat /proc/$PPID/cmdline | tr \"\\\\0\" \" \")\" >> '{}'\necho forged\n", marker.display()),
    )
    .expect("script");
    std::process::Command::new("chmod")
        .args(["+x", &script.display().to_string()])
        .status()
        .expect("chmod");
    t.write(".gitattributes", "*.txt filter=evil\n");
    t.git(&["config", "filter.evil.clean", &script.display().to_string()]);
    t.git(&["config", "core.fsmonitor", &script.display().to_string()]);
    t.write("a.txt", "changed\n");
    let tree = t.repo.tree_hash().expect("tree");
    assert!(
        !marker.exists(),
        "a repository-configured program ran: {:?}",
        std::fs::read_to_string(&marker)
    );
    let text = t
        .repo
        .blob_text(tree.as_str(), std::path::Path::new("a.txt"), 1024)
        .expect("read");
    assert_eq!(text.as_deref(), Some("changed\n"));
}
