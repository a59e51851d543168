//! The shared corpus: every `block` line denied, at most 2% of `allow`
//! lines denied (the misses are printed).

use crate::support::decide;

const CORPUS: &str = include_str!("../data/guard-corpus.tsv");

fn cases() -> Vec<(bool, String)> {
    CORPUS
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|line| {
            let (expect, command) = line.split_once('\t')?;
            Some((expect == "block", command.replace("\\n", "\n")))
        })
        .collect()
}

#[test]
fn corpus_blocks_every_block_line_and_allows_the_rest() {
    let cases = cases();
    assert!(cases.len() > 200, "corpus did not load");
    let mut missed_blocks = Vec::new();
    let mut wrong_denies = Vec::new();
    let mut allows = 0usize;
    for (block, command) in &cases {
        let d = decide(command);
        if *block && d.is_allow() {
            missed_blocks.push(format!("{command:?} -> {}", d.reason));
        }
        if !*block {
            allows += 1;
            if d.is_deny() {
                wrong_denies.push(format!("{command:?} -> {:?}: {}", d.rule, d.reason));
            }
        }
    }
    for m in &missed_blocks {
        eprintln!("MISSED BLOCK: {m}");
    }
    for m in &wrong_denies {
        eprintln!("FALSE DENY: {m}");
    }
    eprintln!(
        "corpus: {} block lines, {} missed; {} allow lines, {} denied",
        cases.len() - allows,
        missed_blocks.len(),
        allows,
        wrong_denies.len()
    );
    assert!(
        missed_blocks.is_empty(),
        "{} block lines allowed",
        missed_blocks.len()
    );
    assert!(
        wrong_denies.len() * 50 <= allows,
        "{} of {allows} allow lines denied",
        wrong_denies.len()
    );
}
