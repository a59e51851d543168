//! The lookups behind a goal's anchors: words used, names defined, paths tracked.

use crate::TestRepo;

#[test]
fn words_names_and_paths_of_the_repository() {
    let t = TestRepo::new();
    t.write(
        "src/calc.py",
        "# parse the number and return it\ndef parse(fmt, text):\n    return int(text)\n\nclass Parser:\n    pass\n",
    );
    t.write("tests/test_calc.py", "from calc import parse\ndef test_parse_negative():\n    assert parse('{:d}', '-12') == -12\n");
    t.write("notes.txt", "frobnicate\n");
    t.write(
        "calc.sh",
        "add() {\n  echo $(($1 + $2))\n}\n# mul() is not here\nx=$(sub 1 2)\n",
    );
    t.repo.commit_all("one").expect("commit");
    // Untracked files are not the repository's.
    t.write("untracked.py", "def ghost():\n    pass\n");

    let used = t
        .repo
        .words_used(
            &[
                "test_parse_negative",
                "parse_int",
                "frobnicate",
                "ghost",
                "-e",
            ],
            None,
        )
        .expect("grep");
    assert_eq!(
        used.into_iter().collect::<Vec<_>>(),
        ["frobnicate", "test_parse_negative"]
    );

    // `the` and `number` are in a comment, not defined; `parse` and `Parser` are.
    let defined = t
        .repo
        .names_defined(
            &[
                "parse", "Parser", "the", "number", "ghost", "a|b", "add", "mul", "sub",
            ],
            None,
        )
        .expect("grep");
    // A shell function (`add() {`) is defined; a mention (`mul()`) or a call (`sub 1 2`) is not.
    assert_eq!(
        defined.into_iter().collect::<Vec<_>>(),
        ["Parser", "add", "parse"]
    );

    let paths = t
        .repo
        .paths_tracked(
            &["calc.py", "src/calc.py", "tests", "missing.rs", "alc.py"],
            None,
        )
        .expect("ls-files");
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        ["calc.py", "src/calc.py", "tests"]
    );

    // In a tree: what the repository had then, whatever the working tree has now.
    let tree = t.repo.tree_hash().expect("tree").to_string();
    t.write("src/calc.py", "def other():\n    pass\n");
    std::fs::remove_file(t.path("notes.txt")).expect("rm");
    t.repo.commit_all("two").expect("commit");
    let at = |w: &[&str]| t.repo.names_defined(w, Some(&tree)).expect("grep");
    assert_eq!(
        at(&["parse", "other"]).into_iter().collect::<Vec<_>>(),
        ["parse"]
    );
    let used = t
        .repo
        .words_used(&["frobnicate"], Some(&tree))
        .expect("grep");
    assert_eq!(used.into_iter().collect::<Vec<_>>(), ["frobnicate"]);
    let paths = t
        .repo
        .paths_tracked(&["notes.txt", "calc.py"], Some(&tree))
        .expect("ls-tree");
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        ["calc.py", "notes.txt"]
    );
    assert!(
        t.repo
            .names_defined(&["parse"], None)
            .expect("grep")
            .is_empty()
    );
}

/// A definition starts a statement: a keyword inside prose is none. walkdir's doc comment "A
/// value with this type must be constructed…" made `must` a name the repository defines, so
/// a goal saying "must be raised" targeted the clippy gate whose warning says "that must be
/// used" (corpus/real/rust-walkdir-workspace: the honest fix could never ship).
#[test]
fn a_keyword_in_a_comment_or_a_sentence_defines_nothing() {
    let t = TestRepo::new();
    t.write(
        "src/lib.rs",
        "/// A value with this type must be constructed with [`WalkDir`].\n\
         // the fn below is slow\n\
         pub struct WalkDir;\n\
         impl WalkDir {\n    pub fn new() -> Self { WalkDir }\n    pub(crate) const fn depth(&self) -> usize { 0 }\n}\n\
         pub(crate) async fn fetch() {}\n\
         #[cfg(test)]\nmod tests {}\n",
    );
    t.write(
        "app.py",
        "\"\"\"A class must define its own parse.\"\"\"\nasync def load():\n    pass\n\n@decorator\nclass Loader:\n    pass\n",
    );
    t.write(
        "index.ts",
        "// The interface named below is public\nexport default class Hashids {}\nexport function encode() {}\nexport const decode = () => 1\nexport interface Options {}\n",
    );
    t.repo.commit_all("one").expect("commit");
    let defined = t
        .repo
        .names_defined(
            &[
                "must", "below", "its", "named", "new", "depth", "fetch", "tests", "WalkDir",
                "load", "Loader", "Hashids", "encode", "decode", "Options",
            ],
            None,
        )
        .expect("grep");
    assert_eq!(
        defined.into_iter().collect::<Vec<_>>(),
        [
            "Hashids", "Loader", "Options", "WalkDir", "decode", "depth", "encode", "fetch",
            "load", "new", "tests"
        ]
    );
}
