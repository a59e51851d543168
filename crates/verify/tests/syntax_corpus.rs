//! The screen on the syntax of a change (pawl_verify::syntax), measured on the shared corpus's
//! `core/` set (corpus/verify/README.md): for each case, the base is copied, the case's agent
//! runs its steps in the copy (HOME and the parent directory are private temp dirs), and every
//! non-test file the agent changed or added is screened against the probes of the base's tests.
//!
//! `corpus/verify/independent/` is held out: this harness never reads it (the lead measures it
//! with `PAWL_SYNTAX_CORPUS_SET=independent`).
//!
//! Run: `cargo test -p pawl-verify --test syntax_corpus -- --ignored --nocapture`
//! (its own command: it runs each case's `agent.sh` with `sh`, and `python3` for one case).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use pawl_verify::syntax::{Lang, Probe, extract_probes, screen, screen_data};

/// The categories of cheat the syntax screen is meant to find (issue 34 point 1).
const SCREEN_TARGETS: &[&str] = &[
    "observe-runner",
    "answer-from-tests",
    "special-case-literals",
    "random",
];

fn corpus_dir() -> PathBuf {
    let set = std::env::var("PAWL_SYNTAX_CORPUS_SET").unwrap_or_else(|_| "core".into());
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus/verify")
        .join(set)
}

fn field(toml_text: &str, key: &str) -> String {
    let v: toml::Value = toml::from_str(toml_text).unwrap();
    match v.get(key) {
        Some(toml::Value::String(s)) => s.clone(),
        Some(toml::Value::Integer(i)) => i.to_string(),
        _ => String::new(),
    }
}

fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if matches!(
                name.as_str(),
                ".git" | "node_modules" | "target" | "__pycache__" | ".pytest_cache" | ".venv"
            ) {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = fs::read(&p) {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().to_string();
                out.insert(rel, bytes);
            }
        }
    }
    out
}

/// Test files by the platforms' conventions (the seal's classification is the lead's: this is
/// the harness's stand-in).
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.starts_with("test_")
        || name.starts_with("test.")
        || name.ends_with("_test.py")
        || name.ends_with("_test.go")
        || name.ends_with("_test.sh")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name == "conftest.py"
        || rel.starts_with("test/")
        || rel.starts_with("tests/")
        || rel.contains("/test/")
        || rel.contains("/tests/")
}

fn is_data_file(rel: &str) -> bool {
    [".json", ".txt", ".csv", ".tsv", ".yaml", ".yml", ".dat"]
        .iter()
        .any(|e| rel.ends_with(e))
        && !rel.ends_with("package.json")
        && !rel.ends_with("package-lock.json")
        && !rel.ends_with("tsconfig.json")
}

struct Outcome {
    id: String,
    kind: String,
    category: String,
    flagged: Vec<String>,
    probes: usize,
    not_probed: usize,
}

fn run_case(case: &Path) -> Option<Outcome> {
    let meta = fs::read_to_string(case.join("case.toml")).ok()?;
    let id = field(&meta, "id");
    let steps: usize = field(&meta, "steps").parse().unwrap_or(1);
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let status = Command::new("cp")
        .arg("-R")
        .arg(case.join("base"))
        .arg(&repo)
        .status()
        .ok()?;
    assert!(status.success());
    let base = files(&repo);
    for step in 1..=steps {
        let out = Command::new("sh")
            .arg(case.join("agent.sh"))
            .current_dir(&repo)
            .env("HOME", &home)
            .env("PAWL_CORPUS_STEP", step.to_string())
            .env("PAWL_CORPUS_CASE", case)
            .output()
            .ok()?;
        if !out.status.success() {
            println!(
                "  {id}: agent step {step} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
    }
    let fin = files(&repo);

    // probes of the base's tests (the seal's copy)
    let mut probes: Vec<Probe> = Vec::new();
    let mut not_probed = 0;
    for (rel, bytes) in &base {
        let Some(lang) = Lang::of_path(Path::new(rel)) else {
            continue;
        };
        let src = String::from_utf8_lossy(bytes);
        let inline_tests = lang == Lang::Rust && src.contains("#[test]");
        if !is_test_file(rel) && !inline_tests {
            continue;
        }
        if let Ok(p) = extract_probes(lang, &src) {
            not_probed += p.not_probed.len();
            probes.extend(p.probes);
        }
    }

    let mut flagged = Vec::new();
    for (rel, bytes) in &fin {
        let before = base.get(rel);
        if before == Some(bytes) || is_test_file(rel) {
            continue;
        }
        let after = String::from_utf8_lossy(bytes);
        let before_text = before.map(|b| String::from_utf8_lossy(b).to_string());
        let findings = match Lang::of_path(Path::new(rel)) {
            Some(lang) => screen(
                lang,
                Path::new(rel),
                before_text.as_deref(),
                &after,
                &probes,
            ),
            None if is_data_file(rel) => {
                screen_data(Path::new(rel), before_text.as_deref(), &after, &probes)
            }
            None => continue,
        };
        for f in findings {
            flagged.push(format!(
                "{} {}:{} `{}`",
                f.rule, rel, f.span.line, f.matched
            ));
        }
    }
    Some(Outcome {
        id,
        kind: field(&meta, "kind"),
        category: field(&meta, "category"),
        flagged,
        probes: probes.len(),
        not_probed,
    })
}

#[test]
#[ignore = "its own command: runs every core case's agent (sh, python3)"]
fn syntax_screen_on_the_corpus() {
    let dir = corpus_dir();
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.toml").exists())
        .collect();
    cases.sort();
    let filter = std::env::var("PAWL_SYNTAX_CORPUS_FILTER").unwrap_or_default();
    let mut target_cheats = (0, 0);
    let mut other_cheats = (0, 0);
    let mut honest = (0, 0);
    let mut misses = Vec::new();
    let mut false_flags = Vec::new();
    for case in cases {
        if !case.to_string_lossy().contains(&filter) {
            continue;
        }
        let Some(o) = run_case(&case) else { continue };
        let hit = !o.flagged.is_empty();
        println!(
            "{:<45} {:<7} {:<24} probes {:>2} (+{} not) {}",
            o.id,
            o.kind,
            o.category,
            o.probes,
            o.not_probed,
            if hit { "FLAGGED" } else { "-" }
        );
        for f in &o.flagged {
            println!("      {f}");
        }
        if o.kind == "honest" {
            honest.1 += 1;
            if hit {
                honest.0 += 1;
                false_flags.push(o.id.clone());
            }
        } else if SCREEN_TARGETS.contains(&o.category.as_str()) {
            target_cheats.1 += 1;
            if hit {
                target_cheats.0 += 1;
            } else {
                misses.push(o.id.clone());
            }
        } else {
            other_cheats.1 += 1;
            if hit {
                other_cheats.0 += 1;
            }
        }
    }
    println!(
        "\ncheats the screen targets ({}): {}/{} found; missed: {:?}",
        SCREEN_TARGETS.join(", "),
        target_cheats.0,
        target_cheats.1,
        misses
    );
    println!(
        "other cheats (tests, config, state, env-only): {}/{} flagged",
        other_cheats.0, other_cheats.1
    );
    println!(
        "honest cases flagged: {}/{} {:?}",
        honest.0, honest.1, false_flags
    );
    assert!(
        false_flags.is_empty(),
        "honest cases flagged: {false_flags:?}"
    );
}
