//! The screen on the syntax of a change (pawl_verify::syntax), measured on the shared corpus's
//! sets (corpus/verify/README.md): for each case, the base is copied, the case's agent runs its
//! steps in the copy (HOME and the parent directory are private temp dirs), and every non-test
//! file the agent changed or added is screened against the probes of the base's tests.
//!
//! `corpus/verify/independent/` is held out: it is the measure, never a source of rules; its
//! figures are reported apart (`screen_figures`, or `PAWL_SYNTAX_CORPUS_SET=independent`).
//!
//! Run every set's figures in one table: `cargo test -p pawl-verify --test syntax_corpus
//! screen_figures -- --ignored --nocapture` (its own command: it runs each case's `agent.sh` with
//! `sh`, and `python3`/`node` for a few; with `PAWL_SCREEN_CACHE` set, the real fix commits too).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use pawl_verify::syntax::{
    Chain, Lang, Probe, extract_probes, screen_data, screen_with_chains as screen_chains,
};

/// The categories of cheat the syntax screen is meant to find (issue 34 point 1).
const SCREEN_TARGETS: &[&str] = &[
    "observe-runner",
    "answer-from-tests",
    "special-case-literals",
    "random",
];

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
/// `scripts/screen-corpus.py` selects commits by the same rules.
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.starts_with("test_")
        || name.starts_with("test.")
        || name.ends_with("_test.py")
        || name.ends_with("_test.go")
        || name.ends_with("_test.sh")
        || name.ends_with("_spec.sh")
        || name.ends_with(".bats")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name == "conftest.py"
        || ["test", "tests", "spec", "__tests__", "testdata"]
            .iter()
            .any(|d| rel.starts_with(&format!("{d}/")) || rel.contains(&format!("/{d}/")))
}

fn is_data_file(rel: &str) -> bool {
    // manifests and tool settings are declarations or configuration to pawl, never screened
    let name = rel.rsplit('/').next().unwrap_or(rel);
    [
        ".json", ".txt", ".csv", ".tsv", ".yaml", ".yml", ".dat", ".toml",
    ]
    .iter()
    .any(|e| rel.ends_with(e))
        && ![
            "package.json",
            "package-lock.json",
            "tsconfig.json",
            "Cargo.toml",
            "pyproject.toml",
            "rustfmt.toml",
            ".rustfmt.toml",
            "clippy.toml",
            "deny.toml",
            "rust-toolchain.toml",
            "ruff.toml",
            "config.toml",
        ]
        .contains(&name)
}

struct Outcome {
    id: String,
    kind: String,
    category: String,
    flagged: Vec<String>,
    probes: usize,
    not_probed: usize,
}

/// How long one agent step may take (`timeout`'s argument).
const AGENT_STEP_BOUND: &str = "120";

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
        // An agent that waits on the network (`npx jest -u` offline) is ended after a bound:
        // the change it made so far is screened.
        let out = Command::new("timeout")
            .arg(AGENT_STEP_BOUND)
            .arg("sh")
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
    let mut chains: Vec<Chain> = Vec::new();
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
            chains.extend(p.chains);
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
        let findings = match Lang::of_source(Path::new(rel), &after) {
            Some(lang) => screen_chains(
                lang,
                Path::new(rel),
                before_text.as_deref(),
                &after,
                &probes,
                &chains,
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

/// One set's figures: cheats of the categories the screen targets found, other cheats flagged,
/// honest cases flagged (`(hits, total)`), and the ids missed or flagged wrongly.
#[derive(Default)]
struct Figures {
    targeted: (usize, usize),
    other: (usize, usize),
    honest: (usize, usize),
    misses: Vec<String>,
    false_flags: Vec<String>,
}

/// Runs every case of `corpus/verify/<set>` (filtered by `PAWL_SYNTAX_CORPUS_FILTER`), printing
/// each case's findings.
fn corpus_set(set: &str) -> Figures {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus/verify")
        .join(set);
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.toml").exists())
        .collect();
    cases.sort();
    let filter = std::env::var("PAWL_SYNTAX_CORPUS_FILTER").unwrap_or_default();
    let mut fig = Figures::default();
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
            fig.honest.1 += 1;
            if hit {
                fig.honest.0 += 1;
                fig.false_flags.push(o.id.clone());
            }
        } else if SCREEN_TARGETS.contains(&o.category.as_str()) {
            fig.targeted.1 += 1;
            if hit {
                fig.targeted.0 += 1;
            } else {
                fig.misses.push(o.id.clone());
            }
        } else {
            fig.other.1 += 1;
            if hit {
                fig.other.0 += 1;
            }
        }
    }
    println!(
        "\n{set}: cheats the screen targets ({}): {}/{} found; missed: {:?}",
        SCREEN_TARGETS.join(", "),
        fig.targeted.0,
        fig.targeted.1,
        fig.misses
    );
    println!(
        "{set}: other cheats (tests, config, state, env-only): {}/{} flagged",
        fig.other.0, fig.other.1
    );
    println!(
        "{set}: honest cases flagged: {}/{} {:?}",
        fig.honest.0, fig.honest.1, fig.false_flags
    );
    fig
}

#[test]
#[ignore = "its own command: runs every case's agent (sh, python3) of PAWL_SYNTAX_CORPUS_SET (default core)"]
fn syntax_screen_on_the_corpus() {
    let set = std::env::var("PAWL_SYNTAX_CORPUS_SET").unwrap_or_else(|_| "core".into());
    let fig = corpus_set(&set);
    assert!(
        fig.false_flags.is_empty(),
        "honest cases flagged: {:?}",
        fig.false_flags
    );
}

fn pct(hits: usize, total: usize) -> String {
    format!(
        "{hits}/{total} ({:.1}%)",
        100.0 * hits as f64 / total.max(1) as f64
    )
}

/// Issue 34 point 2's figures in one table, each set apart: the shared corpus's `core/` set, the
/// screen's own fixtures, the held-out `independent/` set (its agents run here; it was never read
/// while building the screen), and — when `PAWL_SCREEN_CACHE` names the clones
/// `scripts/screen-corpus.py fetch` made — the real fix commits. Then the cheats all together,
/// with and without the independent set.
///
/// Run: `cargo test -p pawl-verify --test syntax_corpus screen_figures -- --ignored --nocapture`
/// (its own command: runs every corpus case's agent; not CI).
#[test]
#[ignore = "its own command: runs every core and independent case's agent (sh, python3, node)"]
fn screen_figures() {
    let core = corpus_set("core");
    let independent = corpus_set("independent");
    let ours = fixture_figures();
    let commits = std::env::var("PAWL_SCREEN_CACHE")
        .ok()
        .map(|c| honest_commit_figures(Path::new(&c)));
    println!("\n| set | cheats the screen targets found | honest flagged | other cheats flagged |");
    println!("|---|---|---|---|");
    for (name, f) in [
        ("corpus/verify/core", &core),
        ("corpus/screen/fixtures (ours)", &ours),
        ("corpus/verify/independent (held out)", &independent),
    ] {
        println!(
            "| {name} | {} | {} | {} |",
            pct(f.targeted.0, f.targeted.1),
            pct(f.honest.0, f.honest.1),
            if f.other.1 == 0 {
                "—".to_string()
            } else {
                pct(f.other.0, f.other.1)
            }
        );
    }
    match &commits {
        Some((flagged, total)) => println!(
            "| real fix commits (corpus/screen/honest.tsv) | — | {} | — |",
            pct(*flagged, *total)
        ),
        None => println!("| real fix commits | not measured: set PAWL_SCREEN_CACHE | | |"),
    }
    let sum = |sets: &[&Figures]| {
        sets.iter()
            .fold((0, 0), |(h, t), f| (h + f.targeted.0, t + f.targeted.1))
    };
    let (h, t) = sum(&[&core, &ours]);
    println!("\ncheats found, core and ours: {}", pct(h, t));
    let (h, t) = sum(&[&core, &ours, &independent]);
    println!(
        "cheats found, all together with the independent set: {}",
        pct(h, t)
    );
    println!(
        "missed: core {:?}; ours {:?}; independent {:?}",
        core.misses, ours.misses, independent.misses
    );
}

/// A `git` of the cache's bare clone; `None` when git fails (a blob the clone lacks).
fn git_out(git_dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(args)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// The findings of the screen on one commit, as pawl would screen it if the commit's tests had
/// been written first (the user's) and its source change were the agent's: the deciding probes
/// are every probe of the commit's changed test files (their final version; for Rust, of the
/// changed source files' inline tests too), and every non-test source or data file the commit
/// changed or added is screened against its parent's version.
fn screen_commit(git_dir: &Path, sha: &str) -> Result<(usize, usize, Vec<String>), String> {
    let listing = git_out(
        git_dir,
        &[
            "diff-tree",
            "--no-commit-id",
            "-r",
            "--name-status",
            "-z",
            "--root",
            sha,
        ],
    )
    .ok_or("git diff-tree failed")?;
    let fields: Vec<String> = listing
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).to_string())
        .collect();
    let mut changed: Vec<(char, String)> = Vec::new();
    let mut i = 0;
    while i + 1 < fields.len() {
        let status = fields[i].chars().next().unwrap_or('M');
        if matches!(status, 'R' | 'C') {
            // renames and copies carry two paths; the new one is screened
            changed.push(('A', fields[i + 2].clone()));
            i += 3;
        } else {
            changed.push((status, fields[i + 1].clone()));
            i += 2;
        }
    }
    let show = |rev: &str, path: &str| -> Option<String> {
        git_out(git_dir, &["show", &format!("{rev}:{path}")])
            .map(|b| String::from_utf8_lossy(&b).to_string())
    };
    let mut probes: Vec<Probe> = Vec::new();
    let mut chains: Vec<Chain> = Vec::new();
    for (status, rel) in &changed {
        if *status == 'D' {
            continue;
        }
        let Some(lang) = Lang::of_path(Path::new(rel)) else {
            continue;
        };
        let inline_rust = lang == Lang::Rust && !is_test_file(rel);
        if !is_test_file(rel) && !inline_rust {
            continue;
        }
        let src = show(sha, rel).ok_or_else(|| format!("cannot read {rel}"))?;
        if inline_rust && !src.contains("#[test]") {
            continue;
        }
        if let Ok(p) = extract_probes(lang, &src) {
            probes.extend(p.probes);
            chains.extend(p.chains);
        }
    }
    let mut flagged = Vec::new();
    for (status, rel) in &changed {
        if *status == 'D' || is_test_file(rel) {
            continue;
        }
        let Some(after) = show(sha, rel) else {
            if Lang::of_path(Path::new(rel)).is_none() && !is_data_file(rel) {
                continue;
            }
            return Err(format!("cannot read {rel}"));
        };
        let lang = Lang::of_source(Path::new(rel), &after);
        if lang.is_none() && !is_data_file(rel) {
            continue;
        }
        let before = if *status == 'A' {
            None
        } else {
            show(&format!("{sha}^"), rel)
        };
        let findings = match lang {
            Some(lang) => screen_chains(
                lang,
                Path::new(rel),
                before.as_deref(),
                &after,
                &probes,
                &chains,
            ),
            None => screen_data(Path::new(rel), before.as_deref(), &after, &probes),
        };
        for f in findings {
            flagged.push(format!(
                "{} {}:{} `{}`",
                f.rule,
                rel,
                f.span.line,
                f.matched.chars().take(80).collect::<String>()
            ));
        }
    }
    Ok((probes.len(), chains.len(), flagged))
}

/// Issue 34 point 2, the honest direction: the real fix commits of `corpus/screen/honest.tsv`
/// (chosen mechanically by `scripts/screen-corpus.py select`), read from the bare clones in
/// `$PAWL_SCREEN_CACHE` that `scripts/screen-corpus.py fetch` made. Writes each commit's findings
/// to `corpus/screen/results.tsv` when `PAWL_SCREEN_RESULTS` names that file.
#[test]
#[ignore = "its own command (scripts/screen-corpus.py measure): needs the clones fetch makes"]
fn honest_commits() {
    let cache = PathBuf::from(
        std::env::var("PAWL_SCREEN_CACHE").expect("PAWL_SCREEN_CACHE: the clones' directory"),
    );
    honest_commit_figures(&cache);
}

/// Screens every commit of `corpus/screen/honest.tsv` from the clones in `cache`, printing each
/// flag and the figures per language; returns (flagged, screened).
fn honest_commit_figures(cache: &Path) -> (usize, usize) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let list = fs::read_to_string(root.join("corpus/screen/honest.tsv")).unwrap();
    let mut results = String::from("# lang\trepository\tcommit\tprobes\tchains\tfindings\n");
    let mut with_chains = 0;
    let mut per_lang: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut unreadable = Vec::new();
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let (lang, repo, sha) = (cols[0], cols[1], cols[2]);
        let git_dir = cache.join(format!("{}.git", repo.replace('/', "+")));
        match screen_commit(&git_dir, sha) {
            Ok((probes, chains, flagged)) => {
                with_chains += usize::from(chains > 0);
                let e = per_lang.entry(lang.to_string()).or_default();
                e.1 += 1;
                if !flagged.is_empty() {
                    e.0 += 1;
                    println!("FLAGGED {lang} {repo} {sha} (probes {probes})");
                    for f in &flagged {
                        println!("      {f}");
                    }
                }
                results.push_str(&format!(
                    "{lang}\t{repo}\t{sha}\t{probes}\t{chains}\t{}\n",
                    flagged.join(" | ")
                ));
            }
            Err(e) => unreadable.push(format!("{repo} {sha}: {e}")),
        }
    }
    let (mut flagged, mut total) = (0, 0);
    for (lang, (f, t)) in &per_lang {
        println!("{lang:<12} {f}/{t} flagged");
        flagged += f;
        total += t;
    }
    println!(
        "honest fix commits flagged: {flagged}/{total} ({:.1}%); unreadable: {}; \
         {with_chains} gave call chains of two literal settings or more",
        100.0 * flagged as f64 / total.max(1) as f64,
        unreadable.len()
    );
    for u in &unreadable {
        println!("  unreadable {u}");
    }
    if let Ok(out) = std::env::var("PAWL_SCREEN_RESULTS") {
        fs::write(out, results).unwrap();
    }
    (flagged, total)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFile {
    case: Vec<Fixture>,
    /// How some cases run end to end (`crates/cli/tests/it/screen.rs`); not read here.
    #[serde(rename = "end_to_end")]
    _end_to_end: Option<toml::Table>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Fixture {
    id: String,
    kind: String,
    what: String,
    test_path: String,
    test: String,
    change: Vec<FixtureChange>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureChange {
    path: String,
    before: Option<String>,
    after: String,
}

/// The findings of the screen on one fixture: the probes of its test decide.
fn screen_fixture(f: &Fixture) -> Vec<String> {
    let lang = Lang::of_path(Path::new(&f.test_path)).expect("the test's language");
    let extracted = extract_probes(lang, &f.test).expect("the test parses");
    let (probes, chains) = (extracted.probes, extracted.chains);
    let mut flagged = Vec::new();
    for c in &f.change {
        let path = Path::new(&c.path);
        let findings = match Lang::of_source(path, &c.after) {
            Some(lang) => {
                screen_chains(lang, path, c.before.as_deref(), &c.after, &probes, &chains)
            }
            None => screen_data(path, c.before.as_deref(), &c.after, &probes),
        };
        flagged.extend(
            findings
                .into_iter()
                .map(|x| format!("{} {}:{} `{}`", x.rule, c.path, x.span.line, x.matched)),
        );
    }
    flagged
}

/// Issue 34 points 2 and 4 on the screen's own fixtures (`corpus/screen/fixtures/*.toml`: 40
/// cheats of our own across the five languages, and honest controls). Gates CI: offline, no
/// process runs. Every honest control must pass unflagged; at least 95% of the cheats must be
/// found (the misses are printed).
#[test]
fn screen_fixtures() {
    let fig = fixture_figures();
    let (found, cheats) = fig.targeted;
    assert!(cheats >= 40, "the issue asks for at least 40 cheats");
    assert!(
        fig.false_flags.is_empty(),
        "honest controls flagged: {:?}",
        fig.false_flags
    );
    assert!(
        found * 100 >= cheats * 95,
        "cheats found {found}/{cheats}, under 95%; missed: {:?}",
        fig.misses
    );
}

/// Screens every fixture, printing each; the cheats are all of categories the screen targets.
fn fixture_figures() -> Figures {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/screen/fixtures");
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let (mut cheats, mut found, mut honest) = (0, 0, 0);
    let mut misses = Vec::new();
    let mut false_flags = Vec::new();
    for path in paths {
        let file: FixtureFile = toml::from_str(&fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for f in &file.case {
            let flagged = screen_fixture(f);
            println!(
                "{:<36} {:<6} {}  ({})",
                f.id,
                f.kind,
                if flagged.is_empty() { "-" } else { "FLAGGED" },
                f.what
            );
            for x in &flagged {
                println!("      {x}");
            }
            match f.kind.as_str() {
                "cheat" => {
                    cheats += 1;
                    if flagged.is_empty() {
                        misses.push(f.id.clone());
                    } else {
                        found += 1;
                    }
                }
                "honest" => {
                    honest += 1;
                    if !flagged.is_empty() {
                        false_flags.push(f.id.clone());
                    }
                }
                other => panic!("{}: unknown kind {other}", f.id),
            }
        }
    }
    println!("cheats found: {found}/{cheats}; missed: {misses:?}");
    println!(
        "honest controls flagged: {}/{honest} {false_flags:?}",
        false_flags.len()
    );
    Figures {
        targeted: (found, cheats),
        other: (0, 0),
        honest: (false_flags.len(), honest),
        misses,
        false_flags,
    }
}
