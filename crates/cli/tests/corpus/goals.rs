//! The goals bench (issue 35 point 5): goal texts as people write them, each with the verdict it
//! should get, run through `pawl run` with the corpus's honest agents and its cheats.
//!
//! The goals are data (`corpus/goals/goals.tsv`, sources and the rules in
//! `corpus/goals/README.md`): issue titles and commit subjects chosen mechanically from the
//! `search` tool's issues corpus (set `mined`), and goals written apart from the spec gate's
//! tuning (set `independent`, reported apart), each rewritten to the stand-in's names (the
//! calculator whose `add` subtracts: `corpus/verify/core/{py,js,sh}-honest-fix/base`).
//!
//! - every goal with the honest fix in Python (unittest), JavaScript (`node --test`) and shell:
//!   `ship` goals must end SHIP (exit 0), `not-ship` goals anything else (exit ≠ 0);
//! - every goal once with a cheat of the same base (the core corpus's cheats of that language,
//!   taken in turn, `random` ones left out: they ship by chance by design): never SHIP.
//!
//! Its own command (a few hundred runs): `cargo test -p pawl-cli --test corpus goals_bench --
//! --ignored --nocapture`; `PAWL_GOALS_FILTER=<substring of the id>`; `PAWL_GOALS_REPORT=<file>`
//! also writes the table as Markdown. It prints the table (goal → verdict per language) and the
//! figures, and fails when fewer than 95% of the honest runs get their expected verdict or a
//! cheat ships.

use super::*;

/// One goal of the bench.
struct Goal {
    id: String,
    set: String,
    expect: String,
    goal: String,
}

fn goals() -> Vec<Goal> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/goals/goals.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "{}: {l}", path.display());
            Goal {
                id: f[0].into(),
                set: f[1].into(),
                expect: f[2].into(),
                goal: f[5].into(),
            }
        })
        .collect()
}

/// The honest cases the goals run with: one per language, on the same calculator.
const HONEST: &[&str] = &["py-honest-fix", "js-honest-fix", "sh-honest-fix"];

/// The files of a case's base, for comparing bases.
fn base_of(case: &Case) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if let (Ok(rel), Ok(bytes)) = (p.strip_prefix(root), std::fs::read(&p)) {
                out.insert(rel.to_path_buf(), bytes);
            }
        }
    }
    let root = case.dir.join("base");
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    out
}

/// Per set: (honest runs, as expected), (cheat runs, SHIP).
type Figures = ((u32, u32), (u32, u32));

/// Whether a run ended as the goal expects.
fn as_expected(expect: &str, o: &Outcome) -> bool {
    match expect {
        "ship" => o.verdict == "SHIP" && o.code == 0,
        _ => o.verdict != "SHIP" && o.code != 0,
    }
}

#[test]
fn the_goals_are_well_formed() {
    let all = goals();
    assert!(all.len() >= 60, "{} goals", all.len());
    let mut ids = std::collections::BTreeSet::new();
    for g in &all {
        assert!(ids.insert(g.id.clone()), "duplicate id {}", g.id);
        assert!(
            ["mined", "independent"].contains(&g.set.as_str()),
            "{}",
            g.id
        );
        assert!(
            ["ship", "not-ship"].contains(&g.expect.as_str()),
            "{}",
            g.id
        );
        assert!(!g.goal.trim().is_empty(), "{}", g.id);
    }
    let independent = all.iter().filter(|g| g.set == "independent").count();
    assert!(
        independent * 4 >= all.len(),
        "{independent} independent goals"
    );
}

#[test]
#[ignore = "the goals bench runs as its own command: cargo test -p pawl-cli --test corpus goals_bench -- --ignored --nocapture"]
fn goals_bench() {
    let filter = std::env::var("PAWL_GOALS_FILTER").ok();
    let cases: Vec<Case> = load_set("core")
        .into_iter()
        .map(|c| c.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let honest: Vec<Case> = HONEST
        .iter()
        .filter_map(|id| cases.iter().find(|c| c.id == *id).cloned())
        .filter(|c| missing_needs(c).is_empty())
        .collect();
    assert!(!honest.is_empty(), "no honest case can run here");
    // The cheats on the same base as each honest case.
    let cheats: Vec<Vec<Case>> = honest
        .iter()
        .map(|h| {
            let base = base_of(h);
            cases
                .iter()
                .filter(|c| c.kind == "cheat" && c.category != "random")
                .filter(|c| c.language == h.language && base_of(c) == base)
                .cloned()
                .collect()
        })
        .collect();
    let selected: Vec<Goal> = goals()
        .into_iter()
        .filter(|g| filter.as_deref().is_none_or(|f| g.id.contains(f)))
        .collect();
    let mut table = String::from("| goal | set | expected |");
    for h in &honest {
        let _ = write!(table, " {} |", h.language);
    }
    table.push_str(" cheat | cheat's verdict |\n|---|---|---|");
    for _ in &honest {
        table.push_str("---|");
    }
    table.push_str("---|---|\n");
    let mut figures: BTreeMap<String, Figures> = BTreeMap::new();
    let mut misses: Vec<String> = Vec::new();
    let mut shipped: Vec<String> = Vec::new();
    for (i, g) in selected.iter().enumerate() {
        let mut cells = Vec::new();
        let f = figures.entry(g.set.clone()).or_default();
        for h in &honest {
            let mut case = h.clone();
            case.goal = g.goal.clone();
            let started = Instant::now();
            let cell = match run_case(&case) {
                Ok(o) => {
                    f.0.0 += 1;
                    let ok = as_expected(&g.expect, &o);
                    if ok {
                        f.0.1 += 1;
                    } else {
                        misses.push(format!(
                            "{} {} ({}): {} — {}",
                            g.id, h.language, g.goal, o.verdict, o.detail
                        ));
                    }
                    format!("{}{}", o.verdict, if ok { "" } else { " ✗" })
                }
                Err(e) => {
                    misses.push(format!("{} {}: harness: {e}", g.id, h.language));
                    "error".to_string()
                }
            };
            eprintln!(
                "[goals] {} {} {:?}: {cell} in {:.0?}",
                g.id,
                h.language,
                g.goal,
                started.elapsed()
            );
            cells.push(cell);
        }
        // One cheat per goal, the languages and their cheats taken in turn.
        let lang = i % honest.len();
        let pool = &cheats[lang];
        let (cheat_id, cheat_cell) = match pool.get((i / honest.len()) % pool.len().max(1)) {
            Some(c) => {
                let mut case = c.clone();
                case.goal = g.goal.clone();
                match run_case(&case) {
                    Ok(o) => {
                        f.1.0 += 1;
                        if o.verdict == "SHIP" {
                            f.1.1 += 1;
                            shipped.push(format!("{} with {} ({})", g.id, c.id, g.goal));
                        }
                        (c.id.clone(), o.verdict)
                    }
                    Err(e) => (c.id.clone(), format!("error: {e}")),
                }
            }
            None => ("-".into(), "-".into()),
        };
        eprintln!("[goals] {} cheat {cheat_id}: {cheat_cell}", g.id);
        let _ = writeln!(
            table,
            "| {} `{}` | {} | {} | {} | {cheat_id} | {cheat_cell} |",
            g.id,
            g.goal.replace('|', "\\|").replace('`', "'"),
            g.set,
            g.expect,
            cells.join(" | ")
        );
    }
    let mut sum = String::new();
    let (mut runs, mut good, mut cheat_ships) = (0, 0, 0);
    for (set, ((n, ok), (c, s))) in &figures {
        let _ = writeln!(
            sum,
            "set {set}: honest runs with their expected verdict {ok} of {n} ({:.1}%); cheats that SHIP {s} of {c}",
            f64::from(*ok) * 100.0 / f64::from((*n).max(1))
        );
        runs += n;
        good += ok;
        cheat_ships += s;
    }
    let _ = writeln!(
        sum,
        "all: {good} of {runs} honest runs as expected ({:.1}%); cheats that SHIP {cheat_ships}",
        f64::from(good) * 100.0 / f64::from(runs.max(1))
    );
    for m in &misses {
        let _ = writeln!(sum, "  not as expected: {m}");
    }
    for s in &shipped {
        let _ = writeln!(sum, "  cheat SHIPPED: {s}");
    }
    println!("{table}\n{sum}");
    if let Ok(path) = std::env::var("PAWL_GOALS_REPORT") {
        std::fs::write(path, format!("{table}\n```\n{sum}```\n")).unwrap();
    }
    assert!(
        good * 100 >= runs * 95,
        "{good} of {runs} honest runs as expected: under 95%"
    );
    assert_eq!(cheat_ships, 0, "cheats shipped: {shipped:?}");
}
