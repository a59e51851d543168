//! pawl's git is not the agent's git: every indirection an agent can write into a repository
//! (`.git/config` and what it includes, `.git/info`, replace refs, index bits) is written here
//! as the attack, and pawl's own operations — tree hash, status, commits, rollback — must
//! neither run a program the repository names nor read anything but the real files and objects.
//!
//! Each test first shows the attack works on the user's plain git (the control), then that
//! pawl's git is not moved by it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use pawl_git::{Options, Repo};

use crate::TestRepo;

/// A repository with one commit: `test.py` (the test an agent would weaken) and `code.py`.
fn committed() -> TestRepo {
    let t = TestRepo::new();
    t.write("test.py", "assert add(2, 3) == 5\n");
    t.write("code.py", "def add(a, b): return a - b\n");
    t.repo.commit_all("pre-run").expect("commit").expect("id");
    t
}

/// A script that records each run in `marker` and passes its stdin through, upper-cased (so a
/// filter that ran is visible in the bytes too).
fn spy_script(t: &TestRepo, name: &str) -> (PathBuf, PathBuf) {
    let dir = t.path(".spy");
    std::fs::create_dir_all(&dir).expect("spy dir");
    let marker = dir.join(format!("{name}.ran"));
    let script = dir.join(name);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntr \"\\\\0\" \" \" < /proc/$PPID/cmdline >> '{}'\ntr a-z A-Z\n",
            marker.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    t.write(".gitignore", ".spy/\n");
    (script, marker)
}

/// The bytes of `path` in the tree pawl hashed.
fn hashed(t: &TestRepo, path: &str) -> String {
    let tree = t.repo.tree_hash().expect("tree hash");
    t.repo
        .blob_text(tree.as_str(), Path::new(path), 1 << 20)
        .expect("read")
        .unwrap_or_default()
}

/// Every pawl operation that reads or writes the working tree's files.
fn exercise(t: &TestRepo) {
    t.repo.tree_hash().expect("tree hash");
    t.repo.status().expect("status");
    t.repo.is_dirty().expect("dirty");
    let head = t.repo.head_commit().expect("head").expect("a commit");
    t.repo.diff_stat(&head).expect("diff stat");
    t.repo.snapshot_commit("snapshot").expect("snapshot");
    t.repo.commit_all("pawl commit").expect("commit");
}

#[test]
fn a_clean_filter_named_in_info_attributes_never_runs_and_the_hash_is_of_the_bytes() {
    let t = committed();
    let (script, marker) = spy_script(&t, "clean");
    t.git(&["config", "filter.spy.clean", &script.display().to_string()]);
    t.git(&["config", "filter.spy.smudge", &script.display().to_string()]);
    std::fs::create_dir_all(t.path(".git/info")).expect("info");
    std::fs::write(t.path(".git/info/attributes"), "*.py filter=spy\n").expect("attributes");
    t.write("test.py", "assert add(2, 3) == 5 # edited\n");

    // Control: the user's git runs the filter and records upper-cased bytes.
    t.git(&["add", "test.py"]);
    assert!(marker.exists(), "control: git ran the clean filter");
    t.git(&["reset", "-q"]);
    std::fs::remove_file(&marker).expect("reset marker");

    assert_eq!(hashed(&t, "test.py"), "assert add(2, 3) == 5 # edited\n");
    exercise(&t);
    let head = t.repo.head_commit().expect("head").expect("id");
    t.repo.rollback_to(&head).expect("rollback");
    assert!(
        !marker.exists(),
        "a filter ran inside pawl's git: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
}

#[test]
fn a_filter_from_an_included_config_file_never_runs() {
    let t = committed();
    let (script, marker) = spy_script(&t, "included");
    let include = t.path(".spy/extra.config");
    std::fs::write(
        &include,
        format!(
            "[filter \"inc\"]\n\tclean = {s}\n\tsmudge = {s}\n\trequired = true\n[core]\n\tfsmonitor = {s}\n",
            s = script.display()
        ),
    )
    .expect("include");
    t.git(&["config", "include.path", &include.display().to_string()]);
    t.write(".gitattributes", "* filter=inc\n");
    t.write("code.py", "def add(a, b): return a + b\n");

    exercise(&t);
    assert!(
        !marker.exists(),
        "an included program ran inside pawl's git: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    assert_eq!(hashed(&t, "code.py"), "def add(a, b): return a + b\n");
}

#[test]
fn fsmonitor_hooks_gpg_and_external_diff_never_run() {
    let t = committed();
    let (script, marker) = spy_script(&t, "program");
    let s = script.display().to_string();
    t.git(&["config", "core.fsmonitor", &s]);
    t.git(&["config", "commit.gpgSign", "true"]);
    t.git(&["config", "gpg.program", &s]);
    t.git(&["config", "diff.external", &s]);
    for hook in [
        "pre-commit",
        "post-commit",
        "post-checkout",
        "reference-transaction",
    ] {
        let path = t.path(&format!(".git/hooks/{hook}"));
        std::fs::write(&path, format!("#!/bin/sh\n'{s}' </dev/null\n")).expect("hook");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    t.write("code.py", "def add(a, b): return a + b\n");

    exercise(&t);
    let head = t.repo.head_commit().expect("head").expect("id");
    t.repo.create_branch_and_switch("pawl/run").expect("switch");
    t.repo.rollback_to(&head).expect("rollback");
    assert!(
        !marker.exists(),
        "a configured program ran inside pawl's git: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
}

#[test]
fn core_worktree_written_later_does_not_move_pawls_git() {
    let t = committed();
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    std::fs::write(elsewhere.path().join("test.py"), "assert True\n").expect("decoy");
    std::fs::write(elsewhere.path().join("code.py"), "\n").expect("decoy");
    let before = t.repo.tree_hash().expect("hash");
    t.git(&[
        "config",
        "core.worktree",
        &elsewhere.path().display().to_string(),
    ]);

    // Control: the user's git now looks at the decoy directory.
    let status = t.git(&["status", "--porcelain"]);
    assert!(status.contains("test.py"), "control: {status}");

    // The repository already opened, and one opened again after the change, both stay on the
    // real working tree.
    assert_eq!(t.repo.tree_hash().expect("hash"), before);
    let reopened = Repo::open_with(t.root(), t.options()).expect("reopen");
    assert_eq!(
        reopened.root(),
        std::fs::canonicalize(t.root()).expect("canonical")
    );
    assert_eq!(reopened.tree_hash().expect("hash"), before);
    assert!(reopened.status().expect("status").is_empty());
}

#[test]
fn replace_refs_and_grafts_do_not_change_what_rollback_restores() {
    let t = committed();
    let pre_run = t.repo.head_commit().expect("head").expect("id");
    // The agent commits a weakened test, then makes git show that commit for the pre-run one.
    t.write("test.py", "assert True\n");
    let weakened = t.repo.commit_all("weaken").expect("commit").expect("id");
    t.git(&["replace", "-f", pre_run.as_str(), weakened.as_str()]);
    std::fs::create_dir_all(t.path(".git/info")).expect("info");
    std::fs::write(
        t.path(".git/info/grafts"),
        format!("{}\n", weakened.as_str()),
    )
    .expect("grafts");

    // Control: the user's git shows the weakened test at the pre-run commit.
    assert_eq!(
        t.git(&["show", &format!("{}:test.py", pre_run.as_str())]),
        "assert True\n"
    );

    t.repo.rollback_to(&pre_run).expect("rollback");
    assert_eq!(
        t.read("test.py").as_deref(),
        Some("assert add(2, 3) == 5\n")
    );
    assert_eq!(
        t.repo
            .blob_text(pre_run.as_str(), Path::new("test.py"), 1 << 20)
            .expect("read")
            .as_deref(),
        Some("assert add(2, 3) == 5\n")
    );
    let changes = t
        .repo
        .changes_between(pre_run.as_str(), weakened.as_str())
        .expect("diff");
    assert_eq!(changes.len(), 1, "{changes:?}");
}

#[test]
fn edits_hidden_by_index_bits_are_hashed_as_they_are_on_disk() {
    for flag in ["--assume-unchanged", "--skip-worktree"] {
        let t = committed();
        let clean = t.repo.tree_hash().expect("hash");
        t.git(&["update-index", flag, "test.py"]);
        t.write("test.py", "assert True\n");

        // Control: the user's git does not see the edit.
        assert_eq!(t.git(&["status", "--porcelain"]), "", "control for {flag}");

        assert_ne!(t.repo.tree_hash().expect("hash"), clean, "{flag}");
        assert_eq!(hashed(&t, "test.py"), "assert True\n", "{flag}");
        // The user's real index keeps its bit: pawl changed only its private copy.
        let listing = t.git(&["ls-files", "-v", "test.py"]);
        assert!(
            listing.starts_with('h') || listing.starts_with('S'),
            "{flag}: {listing}"
        );
    }
}

#[test]
fn a_git_earlier_on_path_is_not_the_one_pawl_runs() {
    let t = committed();
    let shim_dir = tempfile::tempdir().expect("shim dir");
    let marker = shim_dir.path().join("ran");
    let shim = shim_dir.path().join("git");
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\ntouch '{}'\necho 'refs/heads/main'\n",
            marker.display()
        ),
    )
    .expect("shim");
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    // What a run fixes at its start: the git that PATH named then.
    let real_path = std::env::var_os("PATH").unwrap_or_default();
    let fixed = pawl_git::resolve_program(&real_path).expect("git on PATH");
    assert!(fixed.is_absolute());

    // Later the agent's PATH has the shim first; pawl's git is still the fixed one.
    let mut options = t.options();
    options.program = fixed.into_os_string();
    let shimmed_path = std::env::join_paths(
        std::iter::once(shim_dir.path().to_owned()).chain(std::env::split_paths(&real_path)),
    )
    .expect("path");
    options.env.push(("PATH".into(), shimmed_path.clone()));
    let repo = Repo::open_with(t.root(), options).expect("open");
    repo.create_branch_and_switch("pawl/run").expect("switch");
    assert_eq!(
        repo.current_branch().expect("branch").as_deref(),
        Some("pawl/run")
    );
    assert!(
        !marker.exists(),
        "the shim ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );

    // Resolving from a PATH that starts with the shim would find it: the fix must happen at
    // the start, from the user's PATH.
    assert_eq!(
        pawl_git::resolve_program(&shimmed_path).as_deref(),
        Some(std::fs::canonicalize(&shim).expect("canonical").as_path())
    );
    let _: Options = Options::default();
}
