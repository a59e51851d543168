//! The tree stamp answers the hash of an unchanged tree without git, and never the hash of a
//! changed one: every way of changing what `git add --all` would hash invalidates it.

use std::time::Duration;

use crate::TestRepo;

/// A committed repository with an ignored dependency directory, a directory of ignored files
/// only, and an ignored file that is tracked anyway.
fn repo() -> TestRepo {
    let t = TestRepo::new();
    t.write(".gitignore", "node_modules/\n*.o\nforced.log\n");
    t.write("src/main.py", "print(1)\n");
    t.write("src/util.py", "X = 1\n");
    t.write("node_modules/pkg/index.js", "module.exports = 1;\n");
    t.write("build/a.o", "obj\n");
    t.write("forced.log", "kept\n");
    t.git(&["add", "-A"]);
    t.git(&["add", "-f", "forced.log"]);
    t.git(&["commit", "-q", "-m", "init"]);
    t
}

/// A stamp taken once every file is older than the clock tick it is taken in (racily clean
/// entries give none, as in git).
fn stamped(t: &TestRepo) -> (String, Vec<u8>) {
    std::thread::sleep(Duration::from_millis(60));
    let (tree, stamp) = t.repo.tree_hash_stamped().expect("hash");
    assert_eq!(tree, t.repo.tree_hash().expect("hash"));
    (tree.to_string(), stamp.expect("a stamp for a settled tree"))
}

#[test]
fn an_unchanged_tree_is_answered_from_the_stamp_even_after_git_status_rewrote_the_index() {
    let t = repo();
    let (tree, stamp) = stamped(&t);
    assert_eq!(
        t.repo.tree_hash_unchanged(&stamp).map(|h| h.to_string()),
        Some(tree.clone())
    );
    std::thread::sleep(Duration::from_millis(1100));
    t.git(&["status", "--porcelain"]);
    assert_eq!(
        t.repo.tree_hash_unchanged(&stamp).map(|h| h.to_string()),
        Some(tree)
    );
    // An ignored directory's contents are not the tree's.
    t.write("node_modules/pkg/other.js", "2\n");
    assert!(t.repo.tree_hash_unchanged(&stamp).is_some());
}

#[test]
fn a_stamp_is_taken_again_when_only_the_index_was_rewritten_a_while_ago() {
    let t = repo();
    let (tree, stamp) = stamped(&t);
    // Nothing moved: nothing to take again.
    let (same, fresh) = t
        .repo
        .tree_hash_unchanged_refreshed(&stamp)
        .expect("unchanged");
    assert_eq!(same.to_string(), tree);
    assert_eq!(fresh, None);
    // The index rewritten just now (same tracked paths): the tree is answered, but the index's
    // new stat data is not vouched for yet (a rewrite in the same clock tick would not move it).
    t.git(&["read-tree", "HEAD"]);
    let (same, fresh) = t
        .repo
        .tree_hash_unchanged_refreshed(&stamp)
        .expect("unchanged");
    assert_eq!(same.to_string(), tree);
    assert_eq!(fresh, None);
    // Rewritten more than a second ago: the stamp with the index's new stat data.
    std::thread::sleep(Duration::from_millis(1100));
    let (same, fresh) = t
        .repo
        .tree_hash_unchanged_refreshed(&stamp)
        .expect("unchanged");
    assert_eq!(same.to_string(), tree);
    let fresh = fresh.expect("taken again");
    assert_ne!(fresh, stamp);
    assert_eq!(fresh.len(), stamp.len());
    assert_eq!(
        t.repo.tree_hash_unchanged_refreshed(&fresh),
        Some((same, None)),
        "the fresh stamp answers without reading the index"
    );
    // And it still sees what the old one saw: a tracked path untracked, a file edited.
    t.git(&["rm", "-q", "--cached", "forced.log"]);
    assert_eq!(t.repo.tree_hash_unchanged(&fresh), None);
    t.git(&["add", "-f", "forced.log"]);
    std::thread::sleep(Duration::from_millis(1100));
    assert!(t.repo.tree_hash_unchanged(&fresh).is_some());
    t.write("src/main.py", "print(2)\n");
    assert_eq!(t.repo.tree_hash_unchanged(&fresh), None);
}

#[test]
fn every_change_to_what_is_hashed_invalidates_the_stamp() {
    type Change = fn(&TestRepo);
    let changes: &[(&str, Change)] = &[
        ("same-size edit", |t| t.write("src/main.py", "print(2)\n")),
        ("edit with the old mtime put back", |t| {
            let p = t.path("src/util.py");
            let before = std::fs::metadata(&p)
                .expect("meta")
                .modified()
                .expect("mtime");
            t.write("src/util.py", "X = 2\n");
            std::fs::File::options()
                .write(true)
                .open(&p)
                .expect("open")
                .set_modified(before)
                .expect("touch");
        }),
        ("chmod +x", |t| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                t.path("src/main.py"),
                std::fs::Permissions::from_mode(0o755),
            )
            .expect("chmod");
        }),
        ("new untracked file", |t| t.write("src/conftest.py", "x\n")),
        ("new file in a directory of ignored files", |t| {
            t.write("build/new.py", "x\n")
        }),
        ("new untracked directory", |t| {
            t.write("newdir/deep/x.py", "x\n")
        }),
        ("deleted file", |t| {
            std::fs::remove_file(t.path("src/util.py")).expect("rm")
        }),
        ("an ignored tracked file untracked", |t| {
            t.git(&["rm", "-q", "--cached", "forced.log"]);
        }),
        ("an ignored file forced in", |t| {
            t.write("build/b.o", "obj\n");
            std::thread::sleep(Duration::from_millis(30));
            t.git(&["add", "-f", "build/b.o"]);
        }),
        ("info/exclude changed", |t| {
            std::fs::write(t.path(".git/info/exclude"), "src/util.py\n").expect("exclude");
        }),
        ("the global excludes file appears", |t| {
            std::fs::create_dir_all(t.repo_home().join("git")).expect("mkdir");
            std::fs::write(t.repo_home().join("git").join("ignore"), "*.py\n").expect("ignore");
        }),
    ];
    for (what, change) in changes {
        let t = repo();
        let (_, stamp) = stamped(&t);
        change(&t);
        assert_eq!(
            t.repo.tree_hash_unchanged(&stamp),
            None,
            "{what}: the stamp still answered"
        );
    }
}

/// On a tree large enough that the stamp's records are compared on several threads (each its
/// own run of the records), a change anywhere is seen: in the first run, at the edges between
/// runs, in the last; and an unchanged large tree is still answered.
#[test]
fn a_change_anywhere_in_a_large_tree_is_seen_by_the_threads_that_compare_it() {
    let t = TestRepo::new();
    let (dirs, files) = (40, 100);
    for d in 0..dirs {
        for f in 0..files {
            t.write(&format!("src/d{d:02}/f{f:03}.py"), &format!("X = {f}\n"));
        }
    }
    t.git(&["add", "-A"]);
    t.git(&["commit", "-q", "-m", "init"]);
    let (tree, stamp) = stamped(&t);
    assert_eq!(
        t.repo.tree_hash_unchanged(&stamp).map(|h| h.to_string()),
        Some(tree)
    );
    // The files in index order (runs of about a thousand records, directories first): the
    // first and last, and one every 400 (each run holds several).
    let all = dirs * files;
    let mut positions: Vec<usize> = (0..all).step_by(400).collect();
    positions.extend([1, all - 1]);
    for k in positions {
        let rel = format!("src/d{:02}/f{:03}.py", k / files, k % files);
        let (_, stamp) = stamped(&t);
        t.write(&rel, "Y = 0\n");
        assert_eq!(
            t.repo.tree_hash_unchanged(&stamp),
            None,
            "{rel}: the stamp still answered"
        );
    }
    let (_, stamp) = stamped(&t);
    std::fs::remove_file(t.path("src/d39/f099.py")).expect("rm");
    assert_eq!(
        t.repo.tree_hash_unchanged(&stamp),
        None,
        "the last file deleted"
    );
}

/// On a tree whose records are compared on several threads, the records must still end where
/// the stamp does: the last run's thread reads up to the end (the runs' starts are found by a
/// pass that stops at the last one), so a stamp with bytes after its last record, or one cut
/// short, answers nothing — an unchanged tree with its own stamp still answers.
#[test]
fn a_large_stamp_with_bytes_after_its_records_or_cut_short_answers_nothing() {
    let t = TestRepo::new();
    for d in 0..30 {
        for f in 0..100 {
            t.write(&format!("src/d{d:02}/f{f:03}.py"), &format!("X = {f}\n"));
        }
    }
    t.git(&["add", "-A"]);
    t.git(&["commit", "-q", "-m", "init"]);
    let (tree, stamp) = stamped(&t);
    assert_eq!(
        t.repo.tree_hash_unchanged(&stamp).map(|h| h.to_string()),
        Some(tree)
    );
    // A whole record more (a copy of the last directory's record is not a file's), a byte
    // more, a byte less.
    for (what, forged) in [
        ("a record appended", {
            let mut s = stamp.clone();
            s.extend_from_slice(b"f\x01a");
            s.extend_from_slice(&[0; 8]);
            s
        }),
        ("a byte appended", {
            let mut s = stamp.clone();
            s.push(0);
            s
        }),
        ("the last byte cut", stamp[..stamp.len() - 1].to_vec()),
    ] {
        assert_eq!(t.repo.tree_hash_unchanged(&forged), None, "{what}");
    }
}

#[test]
fn a_racily_clean_tree_gets_no_stamp_and_a_forged_one_answers_nothing() {
    let t = repo();
    t.write("src/main.py", "print(3)\n");
    // Written in the same clock tick as the hash: its stat data cannot vouch for its content.
    let (_, stamp) = t.repo.tree_hash_stamped().expect("hash");
    if let Some(stamp) = stamp {
        // A slow machine may have moved to the next tick already; then the stamp is sound.
        assert!(t.repo.tree_hash_unchanged(&stamp).is_some());
    }
    assert_eq!(
        t.repo
            .tree_hash_unchanged(b"pawl-tree-stamp 1\nnot a stamp"),
        None
    );
    let (_, mut stamp) = stamped(&t);
    let last = stamp.len() - 1;
    stamp[last] ^= 1;
    assert_eq!(t.repo.tree_hash_unchanged(&stamp), None);
}

#[test]
fn head_is_read_in_process() {
    let t = repo();
    let by_git = t.repo.head_commit().expect("head").expect("a commit");
    assert_eq!(t.repo.head_commit_read(), Some(by_git.clone()));
    t.git(&["pack-refs", "--all"]);
    assert_eq!(t.repo.head_commit_read(), Some(by_git));
    t.git(&["checkout", "-q", "--detach"]);
    assert_eq!(
        t.repo.head_commit_read(),
        t.repo.head_commit().expect("head")
    );
}

/// What a stamped hash leaves, taken once every file is older than the clock tick it is taken
/// in.
fn kept(t: &TestRepo) -> pawl_git::TreeStamp {
    std::thread::sleep(Duration::from_millis(60));
    let (_, kept) = t.repo.tree_hash_since(None).expect("hash");
    kept.expect("a stamp for a settled tree")
}

/// The hash after a stamped one starts from pawl's own index of the last tree: after every kind
/// of change it is the hash taken from scratch, and what it leaves answers the same tree.
#[test]
fn a_hash_that_starts_from_the_last_stamped_tree_is_the_hash_from_scratch() {
    type Change = fn(&TestRepo);
    let changes: &[(&str, Change)] = &[
        ("nothing", |_| {}),
        ("same-size edit", |t| t.write("src/main.py", "print(2)\n")),
        ("edit with the old mtime put back", |t| {
            let p = t.path("src/util.py");
            let before = std::fs::metadata(&p)
                .expect("meta")
                .modified()
                .expect("mtime");
            t.write("src/util.py", "X = 2\n");
            std::fs::File::options()
                .write(true)
                .open(&p)
                .expect("open")
                .set_modified(before)
                .expect("touch");
        }),
        ("chmod +x", |t| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                t.path("src/main.py"),
                std::fs::Permissions::from_mode(0o755),
            )
            .expect("chmod");
        }),
        ("new untracked file", |t| t.write("src/conftest.py", "x\n")),
        ("new untracked directory", |t| {
            t.write("newdir/deep/x.py", "x\n")
        }),
        ("deleted file", |t| {
            std::fs::remove_file(t.path("src/util.py")).expect("rm")
        }),
        ("an ignored tracked file untracked", |t| {
            t.git(&["rm", "-q", "--cached", "forced.log"]);
        }),
        ("an ignored file forced in", |t| {
            t.write("build/b.o", "obj\n");
            t.git(&["add", "-f", "build/b.o"]);
        }),
        ("info/exclude changed", |t| {
            std::fs::write(t.path(".git/info/exclude"), "src/util.py\n").expect("exclude");
        }),
        ("a file replaced by a directory", |t| {
            std::fs::remove_file(t.path("src/util.py")).expect("rm");
            t.write("src/util.py/inner.py", "y\n");
        }),
    ];
    for (what, change) in changes {
        let t = repo();
        let last = kept(&t);
        change(&t);
        let (tree, next) = t.repo.tree_hash_since(Some(&last)).expect("hash");
        let (scratch, _) = t.repo.tree_hash_stamped().expect("hash");
        assert_eq!(tree, scratch, "{what}");
        std::thread::sleep(Duration::from_millis(60));
        if let Some(next) = next {
            assert_eq!(
                t.repo.tree_hash_unchanged(&next.stamp),
                Some(tree),
                "{what}"
            );
        }
    }
}

/// Attack c13 on the hash that starts from pawl's own index: the right file hashed, then the
/// wrong one of the same size written with the old mtime put back, in the same second (git's
/// stat check compares whole seconds and would keep the right file's blob). The stamp's
/// nanosecond ctime drops the entry, and git reads the file.
#[test]
fn a_same_size_swap_with_its_mtime_put_back_in_the_same_second_is_hashed() {
    let mut same_second = 0;
    for _ in 0..6 {
        let t = repo();
        just_after_a_second_begins();
        let p = t.path("src/main.py");
        t.write("src/main.py", "print(7)\n");
        put_back_mtime(&p);
        std::thread::sleep(Duration::from_millis(20));
        let Ok((right, Some(last))) = t.repo.tree_hash_since(None) else {
            continue;
        };
        let before = std::fs::metadata(&p).expect("meta");
        t.write("src/main.py", "print(8)\n");
        put_back_mtime(&p);
        let after = std::fs::metadata(&p).expect("meta");
        use std::os::unix::fs::MetadataExt;
        if before.ctime() == after.ctime() {
            same_second += 1;
        }
        let (tree, _) = t.repo.tree_hash_since(Some(&last)).expect("hash");
        assert_ne!(tree, right, "the right file's blob was kept");
        assert_eq!(tree, t.repo.tree_hash_stamped().expect("hash").0);
    }
    // Not asserted (a loaded machine may cross a second): how often the attack ran as written.
    eprintln!("same second in {same_second} of 6");
}

/// pawl's index of the last tree is used only as its stamp recorded it: another index (one
/// that claims the right file's blob, with stat data git would trust, while the wrong one is on
/// disk: written with the old mtime put back, in the same second) is not where git starts.
#[test]
fn an_index_the_stamp_does_not_vouch_for_is_not_used() {
    for _ in 0..4 {
        let t = repo();
        just_after_a_second_begins();
        t.write("src/main.py", "print(7)\n");
        put_back_mtime(&t.path("src/main.py"));
        std::thread::sleep(Duration::from_millis(20));
        let Ok((_, Some(right))) = t.repo.tree_hash_since(None) else {
            continue;
        };
        t.write("src/main.py", "print(8)\n");
        put_back_mtime(&t.path("src/main.py"));
        std::thread::sleep(Duration::from_millis(20));
        let Ok((_, Some(wrong))) = t.repo.tree_hash_since(None) else {
            continue;
        };
        // The stamp of the wrong tree with the index of the right one.
        let forged = pawl_git::TreeStamp {
            stamp: wrong.stamp.clone(),
            index: right.index.clone(),
        };
        let (tree, _) = t.repo.tree_hash_since(Some(&forged)).expect("hash");
        let (scratch, _) = t.repo.tree_hash_stamped().expect("hash");
        assert_eq!(tree, scratch);
    }
}

/// Sleeps until just after the next second begins: what follows lands in the same second when
/// it can.
fn just_after_a_second_begins() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock");
    std::thread::sleep(Duration::from_nanos(
        1_000_000_000 - u64::from(now.subsec_nanos()) + 1_000_000,
    ));
}

/// Sets `p`'s mtime to 2020-01-01 (what `touch -d` does).
fn put_back_mtime(p: &std::path::Path) {
    std::fs::File::options()
        .write(true)
        .open(p)
        .expect("open")
        .set_modified(std::time::UNIX_EPOCH + Duration::from_secs(1_577_836_800))
        .expect("touch");
}

/// An untracked file is in pawl's index of the last tree; ignored since, it is not hashed (git
/// would keep an entry it holds).
#[test]
fn an_untracked_file_hashed_last_time_and_ignored_since_is_not_hashed() {
    let t = repo();
    t.write("src/conftest.py", "x\n");
    let last = kept(&t);
    t.write(
        ".gitignore",
        "node_modules/\n*.o\nforced.log\nconftest.py\n",
    );
    let (tree, _) = t.repo.tree_hash_since(Some(&last)).expect("hash");
    let (scratch, _) = t.repo.tree_hash_stamped().expect("hash");
    assert_eq!(tree, scratch);
}

/// A measurement, not a test (`cargo test -p pawl-git --test it -- --ignored --nocapture
/// hash_costs`): on the hooks bench's tree (10,000 tracked files in 100 directories), the hash
/// of a tree changed in one file from the real index (every file read: the c13 dating) and from
/// pawl's own index of the last stamped tree, and the stamp's check after `git status` rewrote
/// the index, with the stamp as it was and taken again. Prints medians; asserts only outcomes.
#[test]
#[ignore = "a measurement: prints timings"]
fn hash_costs() {
    let t = TestRepo::new();
    for d in 0..100 {
        for f in 0..100 {
            t.write(
                &format!("src/m{d:02}/f{f:03}.py"),
                &format!("def f_{d}_{f}():\n    return {}\n", d * 100 + f),
            );
        }
    }
    t.git(&["add", "-A"]);
    t.git(&["commit", "-q", "-m", "init"]);
    std::thread::sleep(Duration::from_millis(1100));
    t.git(&["status", "--porcelain"]);
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1000.0
    };
    let (mut scratch, mut since) = (Vec::new(), Vec::new());
    let mut last = kept(&t);
    for i in 0..7 {
        t.write(
            "src/m07/f007.py",
            &format!("def f_7_7():\n    return {i}\n"),
        );
        std::thread::sleep(Duration::from_millis(60));
        let started = std::time::Instant::now();
        let (a, _) = t.repo.tree_hash_since(None).expect("hash");
        scratch.push(started.elapsed());
        let started = std::time::Instant::now();
        let (b, next) = t.repo.tree_hash_since(Some(&last)).expect("hash");
        since.push(started.elapsed());
        assert_eq!(a, b);
        last = next.expect("stamped");
    }
    println!(
        "changed tree: from the real index {:.1} ms, from pawl's index {:.1} ms (median of 7)",
        median(scratch),
        median(since)
    );
    std::thread::sleep(Duration::from_millis(1100));
    // The index rewritten (the same tracked paths), as a `git status` does.
    t.git(&["read-tree", "HEAD"]);
    t.git(&["status", "--porcelain"]);
    std::thread::sleep(Duration::from_millis(1100));
    let (_, fresh) = t
        .repo
        .tree_hash_unchanged_refreshed(&last.stamp)
        .expect("unchanged");
    let fresh = fresh.expect("the index moved: taken again");
    let (mut old, mut new) = (Vec::new(), Vec::new());
    for _ in 0..21 {
        let started = std::time::Instant::now();
        assert!(t.repo.tree_hash_unchanged(&last.stamp).is_some());
        old.push(started.elapsed());
        let started = std::time::Instant::now();
        assert!(t.repo.tree_hash_unchanged(&fresh).is_some());
        new.push(started.elapsed());
    }
    println!(
        "unchanged tree after the index was rewritten: stamp as it was {:.2} ms, taken again {:.2} ms (median of 21)",
        median(old),
        median(new)
    );
    // What the cached Stop's bound compares with: `git status -uno` on the same tree,
    // interleaved with the stamp's check.
    let (mut status, mut check) = (Vec::new(), Vec::new());
    for _ in 0..31 {
        let started = std::time::Instant::now();
        t.git(&["status", "-uno", "--porcelain"]);
        status.push(started.elapsed());
        let started = std::time::Instant::now();
        assert!(t.repo.tree_hash_unchanged(&fresh).is_some());
        check.push(started.elapsed());
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "unchanged tree: the stamp's check {:.2} ms, git status -uno {:.2} ms (median of 31, load {})",
        median(check),
        median(status),
        load.split_whitespace().next().unwrap_or("?")
    );
}
