//! In-process decision time over the corpus: every line evaluated many
//! times with a precompiled policy; prints the median and p99 per decision
//! and the slowest line. Run with `cargo bench -p pawl-guard`.

#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use pawl_guard::{Context, Guard, Input, Policy, TrackedSet, evaluate};

const CORPUS: &str = include_str!("../tests/data/guard-corpus.tsv");
const ROUNDS: usize = 30;

fn context() -> Context {
    let mut ctx = Context::new("/home/dev/repo");
    ctx.repo_root = Some("/home/dev/repo".into());
    ctx.branch = Some("feat/guard".into());
    ctx.run_active = true;
    ctx.home = Some("/home/dev".into());
    ctx.tmpdir = Some("/var/tmp/agent-tmp".into());
    ctx.tracked = Arc::new(
        [
            "README.md",
            "Cargo.toml",
            "Cargo.lock",
            "package.json",
            "src/main.rs",
        ]
        .into_iter()
        .collect::<TrackedSet>(),
    );
    ctx
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn main() {
    let ctx = context();
    let commands: Vec<String> = CORPUS
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(_, c)| c.replace("\\n", "\n"))
        .collect();
    let Ok(guard) = Guard::new(&Policy::default()) else {
        println!("default policy failed to compile");
        return;
    };
    let mut samples = Vec::with_capacity(commands.len() * ROUNDS);
    let mut slowest = (Duration::ZERO, String::new());
    for _ in 0..ROUNDS {
        for command in &commands {
            let input = Input::shell(command.as_str());
            let start = Instant::now();
            let d = guard.evaluate(&input, &ctx);
            let spent = start.elapsed();
            std::hint::black_box(d);
            if spent > slowest.0 {
                slowest = (spent, command.clone());
            }
            samples.push(spent);
        }
    }
    samples.sort();
    println!(
        "guard decision over {} corpus lines x {ROUNDS} rounds (policy precompiled):",
        commands.len()
    );
    println!("  median {:?}", percentile(&samples, 0.5));
    println!("  p99    {:?}", percentile(&samples, 0.99));
    println!("  max    {:?}  ({:?})", slowest.0, slowest.1);

    // What a hook process pays once: evaluate() compiles the policy too.
    let mut cold = Vec::new();
    for command in commands.iter().take(50) {
        let start = Instant::now();
        std::hint::black_box(evaluate(
            &Input::shell(command.as_str()),
            &ctx,
            &Policy::default(),
        ));
        cold.push(start.elapsed());
    }
    cold.sort();
    println!(
        "  evaluate() incl. policy compile: median {:?}",
        percentile(&cold, 0.5)
    );
}
