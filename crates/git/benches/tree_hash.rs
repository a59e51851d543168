//! Tree-hash timing on a generated 10,000-file repository.
//!
//! Run: `cargo bench -p pawl-git --bench tree_hash`. Prints the median of several runs for:
//! - cold: nothing committed, no index, so every file is read and hashed on every call;
//! - warm: everything committed, the real index's stat data lets git skip unchanged files;
//! - warm + edits: as warm, with one tracked file modified and one untracked file added.
// A benchmark is a program whose output is its result; a failed setup should abort loudly.
#![allow(clippy::print_stdout, clippy::expect_used)]

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use pawl_git::{Options, Repo};

const DIRS: usize = 100;
const FILES_PER_DIR: usize = 100;

fn main() {
    let home = tempfile::tempdir().expect("home");
    let work = tempfile::tempdir().expect("work");
    let global = home.path().join("gitconfig");
    std::fs::write(
        &global,
        "[user]\n\tname = Bench\n\temail = bench@example.invalid\n",
    )
    .expect("config");
    let options = Options {
        env: vec![
            (OsString::from("HOME"), home.path().as_os_str().to_owned()),
            (
                OsString::from("GIT_CONFIG_GLOBAL"),
                global.as_os_str().to_owned(),
            ),
        ],
        ..Options::default()
    };
    let repo = Repo::init(work.path(), options).expect("init");
    let generated = Instant::now();
    generate(work.path());
    println!(
        "generated {} files ({} dirs) in {:.2?}",
        DIRS * FILES_PER_DIR,
        DIRS,
        generated.elapsed()
    );

    let cold = measure(5, || {
        repo.tree_hash().expect("tree hash");
    });
    report("cold (untracked, no index)", &cold);

    let committed = Instant::now();
    repo.commit_all("bench").expect("commit").expect("id");
    println!("commit_all of everything: {:.2?}", committed.elapsed());

    let warm = measure(9, || {
        repo.tree_hash().expect("tree hash");
    });
    report("warm (committed, index stat cache)", &warm);

    std::fs::write(work.path().join("d0/f0.txt"), "edited\n").expect("edit");
    std::fs::write(work.path().join("d1/new.txt"), "new\n").expect("new");
    let edited = measure(9, || {
        repo.tree_hash().expect("tree hash");
    });
    report("warm + 1 modified + 1 untracked", &edited);

    let status = measure(9, || {
        repo.is_dirty().expect("status");
    });
    report("is_dirty (for comparison)", &status);
}

fn generate(root: &Path) {
    for d in 0..DIRS {
        let dir = root.join(format!("d{d}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for f in 0..FILES_PER_DIR {
            let body = format!("// file {d}/{f}\n{}\n", "let x = 1; ".repeat(40));
            std::fs::write(dir.join(format!("f{f}.txt")), body).expect("write");
        }
    }
}

fn measure(runs: usize, mut f: impl FnMut()) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn report(label: &str, times: &[Duration]) {
    let median = times[times.len() / 2];
    let min = times[0];
    let max = times[times.len() - 1];
    println!(
        "{label:<38} median {median:>9.2?}  min {min:>9.2?}  max {max:>9.2?}  ({} runs)",
        times.len()
    );
}
