//! Import circles (docs/architecture.md, "Layers"): files of a crate that reach each other
//! through `crate::`, `super::` and `self::` paths, computed by `scripts/import-circles.py`
//! (the strongly connected components of each crate's file graph). The CLI has none over 2
//! files; the engine none over 3.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn circles(args: &[&str]) -> (bool, String) {
    let out = Command::new("python3")
        .arg(workspace().join("scripts/import-circles.py"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("python3 runs the script");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_cli_and_the_engine_have_no_import_circle_over_their_limit() {
    let (ok, report) = circles(&[
        "--max",
        "cli=2",
        "--max",
        "engine=3",
        "crates/cli",
        "crates/engine",
    ]);
    assert!(ok, "import circles over the limit:\n{report}");
    assert!(
        report.contains("cli: ") && report.contains("engine: "),
        "{report}"
    );
}

/// The script sees a circle through `use crate::`, an inline path and `super::`, and not
/// through a comment, a string or a test module's `use super::*`.
#[test]
fn the_script_finds_a_three_file_circle_and_ignores_comments_and_tests() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("demo/src");
    std::fs::create_dir_all(src.join("b")).unwrap();
    let files = [
        ("lib.rs", "mod a;\nmod b;\n// crate::a::x\n"),
        (
            "a.rs",
            "use crate::b::c::Thing;\nfn f() { let _ = \"crate::b\"; }\n",
        ),
        (
            "b.rs",
            "mod c;\npub fn g() { crate::a::f(); }\n#[cfg(test)]\nmod tests { use super::*; }\n",
        ),
        ("b/c.rs", "pub struct Thing;\nfn h() { super::g() }\n"),
        (
            "d.rs",
            "// use crate::a;\nfn s() -> &'static str { \"use crate::a;\" }\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(src.join(name), text).unwrap();
    }
    let demo = dir.path().join("demo");
    let demo = demo.to_str().unwrap();
    let (ok, report) = circles(&["--max", "demo=2", demo]);
    assert!(!ok, "{report}");
    assert!(report.contains("  3: a.rs b.rs b/c.rs"), "{report}");
    let (ok, report) = circles(&["--max", "demo=3", demo]);
    assert!(ok, "{report}");
    assert!(
        !report.contains("d.rs") && !report.contains("lib.rs"),
        "{report}"
    );
}
