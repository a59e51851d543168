//! The clean room: a sync leaves exactly the tree (and the ignored outputs), touches only what
//! changed, trusts nothing it did not write, runs nothing the repository configures; and checks
//! run in it cannot be fooled from the working directory.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_engine::room::{Rebuild, Room, RoomError, SyncStats};
use pawl_engine::verify::{Plan, Verification, Workspace, verify_checks};
use pawl_git::{Options, Repo, TreeHash};
use pawl_store::Store;
use pawl_verify::gate::Check;

use crate::Test;

pub const TESTS: &[Test] = &[
    (
        "room_sync_is_exact_through_every_kind_of_change",
        room_sync_is_exact_through_every_kind_of_change,
    ),
    (
        "room_ignored_outputs_a_check_left_are_removed",
        room_ignored_outputs_a_check_left_are_removed,
    ),
    (
        "room_untracked_leftovers_are_removed",
        room_untracked_leftovers_are_removed,
    ),
    ("room_same_tree_is_a_noop", room_same_tree_is_a_noop),
    (
        "room_a_sync_killed_mid_checkout_does_not_wedge_the_room",
        room_a_sync_killed_mid_checkout_does_not_wedge_the_room,
    ),
    (
        "room_one_file_edit_touches_one_file",
        room_one_file_edit_touches_one_file,
    ),
    (
        "room_unreadable_state_or_changed_index_is_rebuilt",
        room_unreadable_state_or_changed_index_is_rebuilt,
    ),
    (
        "room_tampered_files_are_restored",
        room_tampered_files_are_restored,
    ),
    (
        "room_smudge_filter_of_the_repository_never_runs",
        room_smudge_filter_of_the_repository_never_runs,
    ),
    (
        "room_refuses_foreign_overlapping_and_busy_directories",
        room_refuses_foreign_overlapping_and_busy_directories,
    ),
    (
        "room_a_swap_in_the_working_directory_during_the_checks_changes_nothing",
        room_a_swap_in_the_working_directory_during_the_checks_changes_nothing,
    ),
    (
        "room_a_cache_the_first_verification_wrote_does_not_pass_the_second",
        room_a_cache_the_first_verification_wrote_does_not_pass_the_second,
    ),
    (
        "room_a_check_that_writes_into_the_sealed_environment_is_undone",
        room_a_check_that_writes_into_the_sealed_environment_is_undone,
    ),
    (
        "room_only_the_builds_outputs_are_kept_for_the_next_verification",
        room_only_the_builds_outputs_are_kept_for_the_next_verification,
    ),
    (
        "room_the_jest_cache_the_checks_are_shown_is_only_ever_the_held_trees",
        room_the_jest_cache_the_checks_are_shown_is_only_ever_the_held_trees,
    ),
];

// ------------------------------------------------------------------------------ the fixture

struct Fx {
    tmp: tempfile::TempDir,
    repo: Repo,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path().join("repo");
        std::fs::create_dir(&root).expect("repo dir");
        let options = Options {
            env: vec![
                ("HOME".into(), tmp.path().as_os_str().to_owned()),
                ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
            ],
            ..Options::default()
        };
        let repo = Repo::init(&root, options).expect("git init");
        let fx = Fx { tmp, repo };
        fx.write(".gitignore", "target/\n*.pyc\n.pawl/\n");
        fx
    }

    fn root(&self) -> &Path {
        self.repo.root()
    }

    fn room_dir(&self) -> PathBuf {
        self.tmp.path().join("room")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    fn write(&self, rel: &str, content: &str) {
        write(&self.path(rel), content);
    }

    fn hash(&self) -> TreeHash {
        self.repo.tree_hash().expect("tree hash")
    }

    fn room(&self) -> Room {
        Room::open(&self.repo, &self.room_dir()).expect("room")
    }

    /// Hashes the working tree, syncs the room to it and checks that the room is exactly it.
    fn sync(&self, room: &mut Room) -> SyncStats {
        let tree = self.hash();
        let stats = room.sync(&self.repo, &tree).expect("sync");
        assert_same_files(self.root(), room.root(), &["target/", "a.pyc", "sub/b.pyc"]);
        stats
    }

    fn git(&self, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(self.root())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }
}

fn write(path: &Path, content: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    std::fs::write(path, content).expect("write");
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// What a directory holds, as git would see it: files (content, executable bit) and symlinks
/// (target), by relative path; `.git`, `.pawl` and paths starting with an `ignored` prefix are
/// left out.
#[derive(Debug, PartialEq)]
enum Entry {
    File { exec: bool, bytes: Vec<u8> },
    Link(PathBuf),
}

fn snapshot(dir: &Path, ignored: &[&str]) -> BTreeMap<String, Entry> {
    fn walk(base: &Path, dir: &Path, ignored: &[&str], out: &mut BTreeMap<String, Entry>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            let rel = path
                .strip_prefix(base)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            if rel == ".git" || rel == ".pawl" || ignored.iter().any(|i| rel.starts_with(i)) {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).expect("meta");
            if meta.file_type().is_symlink() {
                out.insert(rel, Entry::Link(std::fs::read_link(&path).expect("link")));
            } else if meta.is_dir() {
                walk(base, &path, ignored, out);
            } else {
                let exec = meta.permissions().mode() & 0o111 != 0;
                let bytes = std::fs::read(&path).expect("read");
                out.insert(rel, Entry::File { exec, bytes });
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, ignored, &mut out);
    out
}

/// The room holds exactly the working tree's files (an oracle independent of git).
fn assert_same_files(repo: &Path, room: &Path, ignored: &[&str]) {
    let want = snapshot(repo, ignored);
    let got = snapshot(room, ignored);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    assert_eq!(got, want);
}

/// (inode, mtime, ctime) of every file: what a rewrite would change.
fn stamps(dir: &Path) -> BTreeMap<String, (u64, i64, i64, i64, i64)> {
    snapshot(dir, &[])
        .into_keys()
        .map(|rel| {
            let m = std::fs::symlink_metadata(dir.join(&rel)).expect("meta");
            let s = (
                m.ino(),
                m.mtime(),
                m.mtime_nsec(),
                m.ctime(),
                m.ctime_nsec(),
            );
            (rel, s)
        })
        .collect()
}

// ------------------------------------------------------------------------------ the tests

fn room_sync_is_exact_through_every_kind_of_change() {
    let fx = Fx::new();
    fx.write("keep.txt", "keep\n");
    fx.write("change.txt", "one\n");
    fx.write("delete.txt", "bye\n");
    fx.write("mode.sh", "#!/bin/sh\n");
    fx.write("becomes_dir", "a file first\n");
    fx.write("becomes_file/inner.txt", "a dir first\n");
    std::os::unix::fs::symlink("keep.txt", fx.path("link")).expect("symlink");
    let mut room = fx.room();
    let first = fx.sync(&mut room);
    assert_eq!(first.rebuilt, Some(Rebuild::NoState));
    assert_eq!(first.files, 8);

    fx.write("added/new.txt", "new\n");
    fx.write("change.txt", "two\n");
    std::fs::remove_file(fx.path("delete.txt")).expect("rm");
    chmod(&fx.path("mode.sh"), 0o755);
    std::fs::remove_file(fx.path("becomes_dir")).expect("rm");
    fx.write("becomes_dir/child.txt", "now a dir\n");
    std::fs::remove_dir_all(fx.path("becomes_file")).expect("rm");
    fx.write("becomes_file", "now a file\n");
    std::fs::remove_file(fx.path("link")).expect("rm");
    std::os::unix::fs::symlink("change.txt", fx.path("link")).expect("symlink");
    let second = fx.sync(&mut room);
    assert_eq!(second.rebuilt, None, "{second:?}");
    // added, changed, deleted, mode, file→dir (2), dir→file (2), symlink
    assert_eq!(second.changed, 9, "{second:?}");
    assert!(!room.root().join("delete.txt").exists());
}

/// Ignored outputs a check leaves (build outputs, bytecode) are not the seal's: the next sync
/// removes them with the untracked ones (the environment taken at the seal stays:
/// `room_a_check_that_writes_into_the_sealed_environment_is_undone`).
fn room_ignored_outputs_a_check_left_are_removed() {
    let fx = Fx::new();
    fx.write("src/lib.rs", "pub fn f() {}\n");
    let mut room = fx.room();
    fx.sync(&mut room);
    write(&room.root().join("target/debug/out.bin"), "built\n");
    write(&room.root().join("sub/b.pyc"), "bytecode\n");

    fx.write("src/lib.rs", "pub fn f() -> u8 { 1 }\n");
    let stats = fx.sync(&mut room);
    assert_eq!(
        (stats.rebuilt.clone(), stats.removed),
        (None, 2),
        "{stats:?}"
    );
    assert!(!room.root().join("target").exists());
    assert!(!room.root().join("sub").exists());
}

fn room_untracked_leftovers_are_removed() {
    let fx = Fx::new();
    fx.write(".gitignore", "target/\n*.pyc\n.pawl/\ngen/\n");
    fx.write("a.txt", "a\n");
    let mut room = fx.room();
    fx.sync(&mut room);
    write(&room.root().join("junk.txt"), "left by a check\n");
    write(&room.root().join("newdir/deep/x.txt"), "x\n");
    write(
        &room.root().join("nested/.git/HEAD"),
        "ref: refs/heads/main\n",
    );
    write(&room.root().join("nested/file"), "n\n");
    write(&room.root().join("a.pyc"), "ignored: removed too\n");

    let stats = fx.sync(&mut room);
    assert_eq!(stats.removed, 4, "{stats:?}");
    for gone in ["junk.txt", "newdir", "nested", "a.pyc"] {
        assert!(!room.root().join(gone).exists(), "{gone} is left");
    }

    // Leftovers in the way of files the next tree adds: an untracked one, and an ignored one
    // that the new .gitignore no longer ignores.
    write(&room.root().join("added.txt"), "left by a check\n");
    write(&room.root().join("gen/out.txt"), "generated\n");
    fx.write(".gitignore", "target/\n*.pyc\n.pawl/\n");
    fx.write("added.txt", "tracked now\n");
    fx.write("gen/out.txt", "tracked too\n");
    let stats = fx.sync(&mut room);
    assert_eq!(stats.rebuilt, None, "{stats:?}");
}

fn room_same_tree_is_a_noop() {
    let fx = Fx::new();
    for i in 0..20 {
        fx.write(&format!("d{}/f{i}.txt", i % 3), &format!("{i}\n"));
    }
    let mut room = fx.room();
    fx.sync(&mut room);
    let before = stamps(room.root());
    // Past git's racy window, so an unchanged file is known unchanged by its stat data alone.
    std::thread::sleep(Duration::from_millis(20));
    let stats = fx.sync(&mut room);
    assert!(stats.is_noop(), "{stats:?}");
    assert_eq!(stamps(room.root()), before);
}

/// Regression (found by the kill -9 test of the headless loop): a sync killed during git's
/// checkout left `index.lock` in the room, and every later verification failed with "Another
/// git process seems to be running".
fn room_a_sync_killed_mid_checkout_does_not_wedge_the_room() {
    let fx = Fx::new();
    fx.write("a.txt", "1\n");
    let mut room = fx.room();
    fx.sync(&mut room);
    drop(room);
    std::fs::write(fx.room_dir().join("index.lock"), "").expect("stale lock");
    fx.write("a.txt", "2\n");
    let mut room = fx.room();
    fx.sync(&mut room);
    assert!(!fx.room_dir().join("index.lock").exists());
}

fn room_one_file_edit_touches_one_file() {
    let fx = Fx::new();
    for i in 0..50 {
        fx.write(&format!("d{}/f{i}.txt", i % 5), &format!("{i}\n"));
    }
    let mut room = fx.room();
    fx.sync(&mut room);
    let before = stamps(room.root());
    fx.write("d3/f13.txt", "edited\n");
    let stats = fx.sync(&mut room);
    assert_eq!((stats.changed, stats.restored, stats.removed), (1, 0, 0));
    let after = stamps(room.root());
    let touched: Vec<&String> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(touched, vec!["d3/f13.txt"]);
}

fn room_unreadable_state_or_changed_index_is_rebuilt() {
    let fx = Fx::new();
    fx.write("a.txt", "a\n");
    let mut room = fx.room();
    fx.sync(&mut room);
    let state = fx.room_dir().join("state.json");

    write(&room.root().join("target/warm"), "w\n");
    std::fs::write(&state, "{not json").expect("garble");
    let stats = fx.sync(&mut room);
    assert!(
        matches!(stats.rebuilt, Some(Rebuild::BadState(_))),
        "{stats:?}"
    );
    // From scratch: the warm output went too.
    assert!(!room.root().join("target/warm").exists());

    // An index that claims a tampered file is clean: found by its digest, not believed.
    std::fs::write(room.root().join("a.txt"), "b\n").expect("tamper");
    let index = fx.room_dir().join("index");
    let mut bytes = std::fs::read(&index).expect("index");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&index, bytes).expect("index");
    let stats = fx.sync(&mut room);
    assert!(
        matches!(stats.rebuilt, Some(Rebuild::Tampered(_))),
        "{stats:?}"
    );

    // No state at all (a sync that did not finish).
    std::fs::remove_file(&state).expect("rm state");
    assert_eq!(fx.sync(&mut room).rebuilt, Some(Rebuild::NoState));

    // The files' directory replaced by a symlink into the repository: never written through.
    let tree_dir = room.root().to_owned();
    std::fs::remove_dir_all(&tree_dir).expect("rm tree");
    let decoy = fx.tmp.path().join("decoy");
    std::fs::create_dir(&decoy).expect("decoy");
    std::os::unix::fs::symlink(&decoy, &tree_dir).expect("symlink");
    let stats = fx.sync(&mut room);
    assert!(
        matches!(stats.rebuilt, Some(Rebuild::Tampered(_))),
        "{stats:?}"
    );
    assert!(decoy.exists() && std::fs::read_dir(&decoy).expect("ls").next().is_none());
}

fn room_tampered_files_are_restored() {
    let fx = Fx::new();
    fx.write("a.txt", "aaaa\n");
    fx.write("dir/b.txt", "b\n");
    fx.write("run.sh", "#!/bin/sh\n");
    let mut room = fx.room();
    fx.sync(&mut room);
    std::thread::sleep(Duration::from_millis(20));
    let r = room.root().to_owned();

    // Same size, mtime put back: ctime still tells.
    let a = r.join("a.txt");
    let mtime = std::fs::metadata(&a)
        .expect("meta")
        .modified()
        .expect("mtime");
    std::fs::write(&a, "bbbb\n").expect("tamper");
    std::fs::File::options()
        .write(true)
        .open(&a)
        .expect("open")
        .set_modified(mtime)
        .expect("touch");
    chmod(&r.join("run.sh"), 0o755);
    // A tracked directory replaced by a symlink to the working directory.
    std::fs::remove_dir_all(r.join("dir")).expect("rm");
    std::os::unix::fs::symlink(fx.path("dir"), r.join("dir")).expect("symlink");

    let stats = fx.sync(&mut room);
    assert_eq!(stats.rebuilt, None, "{stats:?}");
    assert_eq!(stats.restored, 3, "{stats:?}");
    assert!(
        std::fs::symlink_metadata(r.join("dir"))
            .expect("meta")
            .is_dir()
    );
    assert_eq!(
        std::fs::read_to_string(fx.path("dir/b.txt")).expect("b"),
        "b\n"
    );
}

fn room_smudge_filter_of_the_repository_never_runs() {
    let fx = Fx::new();
    let marker = fx.tmp.path().join("smudged");
    fx.write(".gitattributes", "*.dat filter=evil\n*.txt text eol=crlf\n");
    fx.write("x.dat", "payload\n");
    fx.write("y.txt", "line\n");
    // Only a smudge side: hashing (git add) has nothing to run, checking out would.
    fx.git(&[
        "config",
        "filter.evil.smudge",
        &format!("touch {}; cat", marker.display()),
    ]);
    let mut room = fx.room();
    let stats = fx.sync(&mut room);
    assert_eq!(stats.files, 4);
    assert!(!marker.exists(), "the smudge filter ran");
    assert_eq!(
        std::fs::read(room.root().join("y.txt")).expect("y"),
        b"line\n"
    );

    // Through verification as well, and the attack is real: git's own checkout runs it.
    drop(room);
    let v = verify(&fx, Some(fx.room_dir()), "test -f x.dat");
    assert!(v.verified, "{v:?}");
    assert!(!marker.exists(), "the smudge filter ran");
    fx.git(&["add", "x.dat"]);
    std::fs::remove_file(fx.path("x.dat")).expect("rm");
    fx.git(&["checkout-index", "--force", "x.dat"]);
    assert!(marker.exists(), "the attack is not real");
}

fn room_refuses_foreign_overlapping_and_busy_directories() {
    let fx = Fx::new();
    let foreign = fx.tmp.path().join("foreign");
    write(&foreign.join("precious.txt"), "mine\n");
    assert!(matches!(
        Room::open(&fx.repo, &foreign),
        Err(RoomError::NotARoom { .. })
    ));
    assert!(foreign.join("precious.txt").exists());
    for inside in [fx.path("sub/room"), fx.tmp.path().to_owned()] {
        assert!(matches!(
            Room::open(&fx.repo, &inside),
            Err(RoomError::Overlaps { .. })
        ));
    }
    // Inside the git directory is outside the working tree.
    drop(Room::open(&fx.repo, &fx.path(".git/pawl-room")).expect("room in .git"));

    let held = fx.room();
    assert!(matches!(
        Room::open(&fx.repo, &fx.room_dir()),
        Err(RoomError::Busy { .. })
    ));
    drop(held);
    // A lock whose process is gone is taken over.
    std::fs::write(fx.room_dir().join("lock"), "999999999\n").expect("stale lock");
    drop(fx.room());
}

/// The attack: the check reads `data.txt`; while it runs, a process in the working directory
/// swaps in content that passes, waits until the check has read it, and puts the original back
/// before the check ends — so the tree hashed before and after is the same. In place this fools
/// verification; in the room the check never sees the working directory.
fn room_a_swap_in_the_working_directory_during_the_checks_changes_nothing() {
    let fx = Fx::new();
    let sync = fx.tmp.path().join("sync");
    std::fs::create_dir(&sync).expect("sync dir");
    fx.write("data.txt", "bad\n");
    fx.write(
        "check.sh",
        "#!/bin/sh\n\
         # $1: the directory both sides signal through.\n\
         wait_for() { i=0; while [ ! -e \"$1/$2\" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; }\n\
         touch \"$1/started\"\n\
         wait_for \"$1\" swapped\n\
         content=$(cat data.txt)\n\
         touch \"$1/read\"\n\
         wait_for \"$1\" restored\n\
         [ \"$content\" = good ]\n",
    );
    let command = format!("sh check.sh {}", sync.display());

    for room in [None, Some(fx.room_dir())] {
        for f in ["started", "swapped", "read", "restored"] {
            let _ = std::fs::remove_file(sync.join(f));
        }
        let data = fx.path("data.txt");
        let signals = sync.clone();
        let swapper = std::thread::spawn(move || {
            let wait_for = |name: &str| {
                for _ in 0..1000 {
                    if signals.join(name).exists() {
                        return true;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                false
            };
            assert!(wait_for("started"), "the check did not start");
            std::fs::write(&data, "good\n").expect("swap in");
            std::fs::write(signals.join("swapped"), "").expect("signal");
            assert!(wait_for("read"), "the check did not read");
            std::fs::write(&data, "bad\n").expect("swap back");
            std::fs::write(signals.join("restored"), "").expect("signal");
        });
        let v = verify(&fx, room.clone(), &command);
        swapper.join().expect("swapper");
        let evidence = v.items[0].evidence.as_ref().expect("evidence");
        match room {
            None => {
                // The control: in place, the swap passes a tree whose data.txt is "bad".
                assert!(v.verified, "the attack no longer works in place: {v:?}");
                assert_eq!(v.tree_after, None);
                assert_eq!(evidence.data.cwd, fx.root().display().to_string());
            }
            Some(dir) => {
                assert!(!v.verified, "the room was fooled: {v:?}");
                let room_root = std::fs::canonicalize(&dir).expect("room").join("tree");
                assert_eq!(evidence.data.cwd, room_root.display().to_string());
                assert_eq!(evidence.data.tree_hash, v.tree);
            }
        }
    }
}

/// One fresh verification of `command` with an empty store, in the room `room` or in place.
fn verify(fx: &Fx, room: Option<PathBuf>, command: &str) -> Verification {
    let mut store = Store::open(&fx.tmp.path().join("pawl.db")).expect("store");
    let mut ws = Workspace::new(fx.root(), fx.root().join(".pawl"));
    ws.room = room;
    let mut plan = Plan::new(vec![Check::gate("test", command)]);
    plan.fresh = true;
    plan.timeout = Duration::from_secs(60);
    verify_checks(&ws, &mut store, None, &plan).expect("verify")
}

/// The attack (issue 32 point 5): the check fails, but first leaves the answer in a cache that
/// ignores itself (as pytest's `.pytest_cache/.gitignore` does), in an ignored build directory
/// and in bytecode; the second verification of the same tree finds it and passes. Here without
/// the check sandbox (the fallback where checks write the room itself: pawl-process's tests play
/// the overlay); a sync must start every verification from the seal's snapshot.
fn room_a_cache_the_first_verification_wrote_does_not_pass_the_second() {
    let fx = Fx::new();
    fx.write("data.txt", "bad\n");
    let command = "if [ -e .pytest_cache/answer ] || [ -e target/answer ] || [ -e sub/b.pyc ]; then exit 0; fi; \
         mkdir -p .pytest_cache target sub && printf '*\\n' > .pytest_cache/.gitignore && \
         echo pass > .pytest_cache/answer && echo pass > target/answer && echo pass > sub/b.pyc; exit 1";
    let first = verify(&fx, Some(fx.room_dir()), command);
    assert!(!first.verified, "{first:?}");
    let second = verify(&fx, Some(fx.room_dir()), command);
    assert!(
        !second.verified,
        "what the first verification's check wrote passed the second"
    );
    // The next sync (on the same tree) empties the room of them again.
    let mut room = fx.room();
    let stats = room.sync(&fx.repo, &fx.hash()).expect("sync");
    assert_eq!(stats.removed, 3, "{stats:?}");
    for gone in [".pytest_cache", "target", "sub"] {
        assert!(
            !room.root().join(gone).exists(),
            "{gone} is left in the room"
        );
    }
}

/// Without the overlay a check can write into the environment the room took at the seal (a
/// `.pth` in the virtualenv's site-packages runs in every python); the next sync finds the copy
/// changed and takes it again, and drops a build seed a check wrote into.
fn room_a_check_that_writes_into_the_sealed_environment_is_undone() {
    let fx = Fx::new();
    fx.write(".gitignore", ".venv/\ntarget/\n.pawl/\n");
    fx.write("src/lib.py", "x = 1\n");
    let sp = ".venv/lib/python3/site-packages";
    fx.write(&format!("{sp}/dep.py"), "y = 2\n");
    fx.write("target/debug/seed.bin", "seed\n");
    let env = pawl_verify::platform::Environment {
        dirs: vec![".venv".into()],
        seed: vec!["target".into()],
        packages: vec![".venv/lib/*/site-packages".into()],
        ..Default::default()
    };
    let mut room = fx.room();
    let sync = |room: &mut Room| room.sync(&fx.repo, &fx.hash()).expect("sync");
    sync(&mut room);
    room.take_environment(&fx.repo, &env).expect("take");
    let stats = sync(&mut room);
    assert!(stats.is_noop(), "{stats:?}");
    assert!(room.root().join("target/debug/seed.bin").exists());

    // What a check writes.
    write(&room.root().join(sp).join("evil.pth"), "import os\n");
    write(&room.root().join("target/debug/answer"), "pass\n");
    let stats = sync(&mut room);
    assert_eq!(stats.env_restored, [".venv", "target"], "{stats:?}");
    assert!(!room.root().join(sp).join("evil.pth").exists());
    assert!(room.root().join(sp).join("dep.py").exists());
    assert!(
        !room.root().join("target").exists(),
        "a seed a check wrote is dropped"
    );
    assert!(sync(&mut room).is_noop());

    // Changed in the room and in the repository: the sealed environment is gone.
    write(&room.root().join(sp).join("evil.pth"), "import os\n");
    fx.write(&format!("{sp}/other.py"), "z = 3\n");
    match room.sync(&fx.repo, &fx.hash()) {
        Err(RoomError::EnvironmentLost { dir }) => assert_eq!(dir, ".venv"),
        other => panic!("{other:?}"),
    }
}

/// The layers the check sandbox leaves in the room's scratch (pawl-process's tests make them
/// with real overlays): at the next sync the `build` check's build directory joins the room,
/// a test's layer and everything else of the build's are discarded.
fn room_only_the_builds_outputs_are_kept_for_the_next_verification() {
    let fx = Fx::new();
    fx.write("src/lib.rs", "pub fn f() {}\n");
    fx.write("target/debug/seed.rlib", "seed\n");
    let env = pawl_verify::platform::Environment {
        seed: vec!["target".into()],
        ..Default::default()
    };
    let mut room = fx.room();
    let sync = |room: &mut Room| room.sync(&fx.repo, &fx.hash()).expect("sync");
    sync(&mut room);
    room.take_environment(&fx.repo, &env).expect("take");
    let scratch = room.dir().join(pawl_process::sandbox::check::ROOM_SCRATCH);
    write(
        &scratch.join("kept-build/upper/target/debug/lib.rlib"),
        "built\n",
    );
    write(&scratch.join("kept-build/upper/.pytest_cache/x"), "x\n");
    write(
        &scratch.join("check-test-1/upper/target/debug/answer"),
        "pass\n",
    );
    let stats = sync(&mut room);
    assert!(stats.env_restored.is_empty(), "{stats:?}");
    assert!(!scratch.exists());
    let t = room.root().to_owned();
    assert!(t.join("target/debug/lib.rlib").exists());
    assert!(t.join("target/debug/seed.rlib").exists());
    assert!(!t.join("target/debug/answer").exists());
    assert!(!t.join(".pytest_cache").exists());
    // Kept: the next sync finds the build directory as it recorded it.
    assert!(sync(&mut room).is_noop());
    // A build directory something else wrote into is dropped before a build's are kept.
    write(&t.join("target/debug/planted"), "x\n");
    write(
        &scratch.join("kept-build/upper/target/debug/next.rlib"),
        "built\n",
    );
    sync(&mut room);
    assert!(!t.join("target/debug/planted").exists());
    assert!(!t.join("target/debug/lib.rlib").exists());
    assert!(t.join("target/debug/next.rlib").exists());
}

/// Every file under `dir` with its text (nothing when `dir` is not there).
fn texts_under(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .expect("under")
                    .display()
                    .to_string();
                out.insert(rel, std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }
    out
}

/// Writes a jest cache as a pass of `tree` would leave it in the room directory `room_dir`,
/// its entry's directory made read-only (what the pass of a run's configuration can do at
/// exit), stamped when `finished`.
fn jest_pass_output(room_dir: &Path, tree: &TreeHash, text: &str, finished: bool) {
    let cache = pawl_engine::room::jestcache::dir(room_dir);
    let entry = cache.join("jest-transform-cache-0123/ab");
    write(&entry.join("calc_ab12"), text);
    chmod(&entry, 0o555);
    if finished {
        write(
            &room_dir.join(pawl_engine::room::jestcache::STAMP),
            tree.as_str(),
        );
    }
}

/// The jest pass trusts that only a tree's own checks see its cache. The path the checks'
/// copy-on-write bind names (`jestcache::dir`) is read when a check starts, so a check
/// configuration made for one tree and used after the room moved (a stale stamp) would show
/// that tree's transforms to another tree's checks: with main's (`866cd9a7`) jest handling
/// this test fails at the first sync ("the transform of tree a" still at the path), the cache
/// staying where it was until the next pass, whose removal a read-only directory the last
/// pass left could stop (as a user). Now a sync to another tree moves the cache away first:
/// the path holds nothing of another tree's (a cold run), and the tree's own cache comes back
/// when the room holds it again; an unfinished one is discarded, read-only directories and
/// all. And a check's layer with a read-only directory no longer stops the next sync.
fn room_the_jest_cache_the_checks_are_shown_is_only_ever_the_held_trees() {
    use pawl_engine::room::jestcache;
    let fx = Fx::new();
    fx.write("calc.js", "a\n");
    let mut room = fx.room();
    fx.sync(&mut room);
    let a = fx.hash();
    let shown = jestcache::dir(room.dir());
    jest_pass_output(room.dir(), &a, "the transform of tree a", true);
    // Another tree: nothing of a's at the path the checks are shown.
    fx.write("calc.js", "b\n");
    fx.sync(&mut room);
    let b = fx.hash();
    assert!(texts_under(&shown).is_empty(), "{:?}", texts_under(&shown));
    assert!(!room.dir().join(jestcache::STAMP).exists());
    // The same tree again: nothing moves.
    jest_pass_output(room.dir(), &b, "the transform of tree b", true);
    fx.sync(&mut room);
    assert_eq!(
        texts_under(&shown).values().collect::<Vec<_>>(),
        ["the transform of tree b"]
    );
    // Back to a: a's own cache, stamped a; b's set aside.
    fx.write("calc.js", "a\n");
    fx.sync(&mut room);
    assert_eq!(fx.hash(), a);
    assert_eq!(
        texts_under(&shown).values().collect::<Vec<_>>(),
        ["the transform of tree a"]
    );
    assert_eq!(
        std::fs::read_to_string(room.dir().join(jestcache::STAMP)).expect("stamp"),
        a.as_str()
    );
    // A pass that did not finish (no stamp) is discarded whatever it made read-only, and never
    // set aside as the tree's.
    let _ = std::fs::remove_file(room.dir().join(jestcache::STAMP));
    let _ = std::process::Command::new("chmod")
        .args(["-R", "u+rwx"])
        .arg(&shown)
        .status();
    std::fs::remove_dir_all(&shown).expect("remove");
    jest_pass_output(room.dir(), &a, "half a pass", false);
    fx.write("calc.js", "c\n");
    fx.sync(&mut room);
    assert!(texts_under(&shown).is_empty(), "{:?}", texts_under(&shown));
    fx.write("calc.js", "a\n");
    fx.sync(&mut room);
    assert!(texts_under(&shown).is_empty(), "{:?}", texts_under(&shown));
    // At most three trees' caches are kept aside.
    for i in 0..5 {
        fx.write("calc.js", &format!("{i}\n"));
        fx.sync(&mut room);
        jest_pass_output(room.dir(), &fx.hash(), &format!("tree {i}"), true);
    }
    fx.write("calc.js", "last\n");
    fx.sync(&mut room);
    let aside = std::fs::read_dir(room.dir().join(jestcache::SET_ASIDE))
        .expect("set aside")
        .count();
    assert!(aside <= 3, "{aside}");
    assert!(texts_under(&shown).is_empty());
    // A check's layer with a directory it made read-only is emptied by the next sync all the
    // same (as a user, main's sync failed: "Permission denied").
    let layer = room
        .dir()
        .join(pawl_process::sandbox::check::ROOM_SCRATCH)
        .join("upper/ro");
    write(&layer.join("f"), "x");
    chmod(&layer, 0o555);
    fx.sync(&mut room);
    assert!(!layer.exists());
    // Leave the fixture removable.
    let _ = std::process::Command::new("chmod")
        .args(["-R", "u+rwx"])
        .arg(room.dir())
        .status();
}
