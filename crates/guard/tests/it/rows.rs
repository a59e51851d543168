//! Bypass and ordinary-work rows as data: every `tests/data/classes-*.tsv` file, one loop.
//!
//! Columns: `class<TAB>expected<TAB>rule<TAB>command`. `class` is an id explained in
//! `tests/data/FINDINGS.md`; `expected` is `allow`, `deny`, or `gap` (should be denied, known to
//! be allowed today: counted and printed, not failed — a gap that starts being denied fails,
//! so the row is promoted to `deny`); `rule` is the rule id a denial must carry (`*` for any,
//! `-` for an allow). In a command `\n` is a newline, `\t` a tab, `\\` a backslash. Context: the corpus repository
//! (`tests/data/guard-corpus.md`: /home/dev/repo on feat/guard, HOME=/home/dev,
//! TMPDIR=/var/tmp/agent-tmp).

use std::collections::BTreeMap;

use pawl_guard::RuleId;

use crate::support::decide;
use crate::unescape::unescape;

fn tables() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("tests/data: {e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("classes-") && n.ends_with(".tsv"))
        })
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.display().to_string(), text)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_class_row_decides_as_written() {
    let mut wrong = Vec::new();
    let mut rows = 0usize;
    // class -> (rows, denied)
    let mut by_class: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut gaps = Vec::new();
    let findings = include_str!("../data/FINDINGS.md");
    for (file, text) in tables() {
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let cols: Vec<&str> = line.splitn(4, '\t').collect();
            let [class, expect, rule, command] = cols[..] else {
                panic!("{file}:{}: malformed row {line:?}", n + 1);
            };
            assert!(
                findings.contains(&format!("`{class}`")),
                "{file}:{}: class `{class}` is not explained in FINDINGS.md",
                n + 1
            );
            rows += 1;
            let command = unescape(command);
            let d = decide(&command);
            let entry = by_class.entry(class.to_owned()).or_default();
            entry.0 += 1;
            if d.is_deny() {
                entry.1 += 1;
            }
            let rule_ok = rule == "*" || d.rule.map(RuleId::as_str) == Some(rule);
            let ok = match expect {
                "allow" => d.is_allow(),
                "deny" => d.is_deny() && rule_ok,
                "gap" => {
                    gaps.push(format!("gap {class}\t{command}"));
                    d.is_allow()
                }
                "fp" => {
                    gaps.push(format!("fp  {class}\t{command}"));
                    d.is_deny()
                }
                other => panic!("{file}:{}: unknown decision {other:?}", n + 1),
            };
            if !ok {
                wrong.push(format!(
                    "{file}:{}: {class} {expect} {rule}\t{command}\n    got {:?} {:?}: {}",
                    n + 1,
                    d.decision,
                    d.rule,
                    d.reason
                ));
            }
        }
    }
    assert!(rows >= 1000, "the tables did not load ({rows} rows)");
    for (class, (n, denied)) in &by_class {
        println!("{class:<24} {denied:>4}/{n:<4} denied");
    }
    println!(
        "{} known gaps and false positives:\n{}",
        gaps.len(),
        gaps.join("\n")
    );
    assert!(
        wrong.is_empty(),
        "{} of {rows} rows decided otherwise:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// A throwaway copy of a protected name in a temporary directory is allowed; under a HOME or a
/// repository that lies in a temporary directory it is what it protects (the CLI's tests run in
/// such a HOME).
#[test]
fn throwaway_copies_only_outside_home_and_the_repository() {
    use pawl_guard::{Context, Input, Policy, evaluate};
    let mut ctx = Context::new("/tmp/w/repo");
    ctx.repo_root = Some("/tmp/w/repo".into());
    ctx.home = Some("/tmp/w/home".into());
    ctx.run_active = true;
    let decide = |c: &str| evaluate(&Input::shell(c), &ctx, &Policy::default());
    assert!(decide("cp .env.example /tmp/other/.env").is_allow());
    for c in [
        "echo '{}' > ~/.claude/settings.json",
        "cp .env.example /tmp/w/repo/.env",
        "cp x /tmp/w/home/.ssh/id_rsa",
        "echo x > /tmp/w/repo/pawl.toml",
    ] {
        assert!(decide(c).is_deny(), "{c}");
    }
}
