//! The engine's loop, driven without pawl's binary: whole runs with the replay agent (this test
//! binary is its program: `<exe> __replay --scenario F --step N`) and a scripted [`Verifier`].
//! Limits, breakers, stall recovery, rate-limit waits, stop requests and resume — each asserted
//! on the store (iterations, failures, statuses) and on the typed stop reason. And the clean
//! room (`room.rs`): syncs in real repositories, and verification in it.
//!
//! `harness = false`: `main` answers the replay protocol first, then runs the tests below in
//! order (a name given on the command line filters them, as libtest does).

#![expect(
    clippy::expect_used,
    clippy::print_stdout,
    reason = "a test binary (harness = false): a failed expectation is a failed test, and it prints \
              its own libtest-like report"
)]

mod harness;
mod probes;
mod proof;
mod reviewer;
mod room;
mod roomenv;
mod roomsetup;
mod runs;
mod start;
mod tamper;
mod tester;

use std::io::Write as _;
use std::panic::AssertUnwindSafe;

type Test = (&'static str, fn());

fn main() -> std::process::ExitCode {
    // The step launcher (pawl-process's sandbox), as pawl's binary answers it: the engine's
    // drive probes the sandbox with its own executable (`start::drive`'s tests).
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == pawl_process::sandbox::LAUNCHER_ARG)
    {
        let code = pawl_process::sandbox::launcher_main(std::env::args_os().skip(2).collect());
        return std::process::ExitCode::from(u8::try_from(code.clamp(0, 255)).unwrap_or(1));
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(pawl_agent::replay::SUBCOMMAND) {
        return harness::replay_step(&args[1..]);
    }
    let filter: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let tests: Vec<&Test> = runs::TESTS
        .iter()
        .chain(proof::TESTS)
        .chain(reviewer::TESTS)
        .chain(probes::TESTS)
        .chain(tester::TESTS)
        .chain(room::TESTS)
        .chain(roomenv::TESTS)
        .chain(roomsetup::TESTS)
        .chain(start::TESTS)
        .chain(tamper::TESTS)
        .filter(|(name, _)| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str())))
        .collect();
    println!("running {} tests", tests.len());
    let mut failed = Vec::new();
    for (name, test) in &tests {
        print!("test {name} ... ");
        let _ = std::io::stdout().flush();
        match std::panic::catch_unwind(AssertUnwindSafe(test)) {
            Ok(()) => println!("ok"),
            Err(_) => {
                println!("FAILED");
                failed.push(*name);
            }
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        tests.len() - failed.len(),
        failed.len()
    );
    if failed.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        println!("failures: {failed:?}");
        std::process::ExitCode::FAILURE
    }
}
