//! Programs that run commands and interpreter one-liners: the cases that are not rows (bounded
//! time on huge one-liners). The bypasses are rows of `tests/data/classes-exec.tsv`.

use crate::support::decide;

#[test]
fn long_one_liners_are_bounded() {
    use std::time::{Duration, Instant};
    let unit = "subprocess.run(open(";
    let body = unit.repeat(60_000 / unit.len());
    for code in [
        format!("python3 -c 'import subprocess; {body}'"),
        format!(
            "node -e 'require(\"child_process\"); {}'",
            "exec([".repeat(8_000)
        ),
        format!("perl -e '{}'", "system \"a\", ".repeat(4_000)),
        format!("awk '{}'", "BEGIN{system()} ".repeat(3_000)),
        format!("sed '{}'", "s/a/b/;".repeat(8_000)),
        format!("node -e '\"{}\"'", "\\u{".repeat(15_000)),
    ] {
        let start = Instant::now();
        let _ = decide(&code);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{} took {:?}",
            &code[..40],
            start.elapsed()
        );
    }
}

#[test]
fn r2_many_program_variables_stay_bounded() {
    let start = std::time::Instant::now();
    let d = decide(
        "CC=ls CXX=ls LD=ls AR=ls CPP=ls HOSTCC=ls CC_LD=ls CXX_LD=ls LESSOPEN='|ls %s' LESSCLOSE=ls RUSTC_WRAPPER=ls RUSTC=ls RUSTDOC=ls cargo build",
    );
    assert!(d.is_allow(), "{d:?}");
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
}
