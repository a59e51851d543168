//! The README is true (issue 37): every command its `sh` blocks show is run, in order, on a
//! fixture repository whose check fails until the scripted replay agent fixes it — not only
//! `--help`. `pawl run "<goal>"` gets `--scenario <file>` added (the replay agent needs one);
//! nothing else is changed. A command that needs what a test machine has not (a PostgreSQL
//! server, a daemon listening for ever, a cargo build) is listed with the reason, and the list
//! is checked too: a new README command is either run here or named there.

use std::path::Path;

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config};

/// Commands not run here, each with the reason (matched as a prefix of the README line).
const NOT_RUN: &[(&str, &str)] = &[
    (
        "cargo run --release -p pawl-cli -- demo",
        "run as `pawl demo` below",
    ),
    (
        "bash scripts/test.sh",
        "the whole test suite: this test is part of it",
    ),
    (
        "cargo install --path crates/cli",
        "a release build of this binary",
    ),
    (
        "PAWL_STORE_URL=postgres://",
        "needs the fleet's PostgreSQL server (tests/it/fleet.rs)",
    ),
    (
        "pawl fleet plan fleet.toml",
        "needs a fleet.toml (tests/it/fleet.rs)",
    ),
    (
        "pawl fleet budget nightly",
        "needs the fleet's PostgreSQL store (tests/it/fleet.rs)",
    ),
    (
        "pawl runs --store postgres://",
        "needs the fleet's PostgreSQL server (tests/it/fleet.rs)",
    ),
    (
        "pawl serve",
        "a daemon that serves until stopped (tests/it/serve.rs)",
    ),
    (
        "pawl dashboard",
        "needs the daemon and a browser (tests/it/serve.rs)",
    ),
];

/// Commands whose non-zero exit is what the README leads one to expect here, with why.
const MAY_FAIL: &[(&str, &str)] = &[
    // The Quick start's run ends verified; nothing is left to stop.
    ("pawl stop", "no run is active any more"),
    // The replay fix takes one iteration.
    ("pawl logs --iteration 2", "the run had one iteration"),
    // The Install block's doctor runs before `pawl init`: the repository is not set up yet, and
    // no agent CLI is installed on a test machine.
    (
        "pawl doctor",
        "no agent CLI here; exits 1 when a check fails",
    ),
    // `pawl merge` after the README's own `git commit`: the run's branch is the branch.
    (
        "pawl merge",
        "nothing to merge when the run worked on main itself",
    ),
    // The await-user check runs `grep -q STRIPE_KEY .env`, and nothing made .env.
    (
        "pawl check-user-fix",
        "the user has not fixed it (.env is missing)",
    ),
];

/// The README's `sh` blocks, line by line, trailing `# comments` removed.
fn readme_commands(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        if !in_sh || line.trim().is_empty() {
            continue;
        }
        out.push(strip_comment(line).trim().to_owned());
    }
    out
}

/// `line` without a `#` comment that is outside quotes and follows whitespace.
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') if prev.is_whitespace() => return &line[..i],
            _ => {}
        }
        prev = c;
    }
    line
}

#[test]
fn every_command_the_readme_shows_runs_on_a_fixture_with_the_replay_agent() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let commands = readme_commands(&readme);
    assert!(commands.len() > 40, "{commands:?}");

    let env = TestEnv::new();
    // The fixture: a check that fails until done.txt exists, the replay agent that writes it.
    env.write("pawl.toml", &config("max_iterations = 3", NO_BREAKERS, ""));
    let scenario = env.dir.path().join("fix.jsonl");
    std::fs::write(
        &scenario,
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\\n\"}\n",
    )
    .unwrap();
    std::fs::create_dir_all(env.home.join(".local/share/bash-completion/completions")).unwrap();
    std::fs::create_dir_all(env.home.join(".local/share/man/man1")).unwrap();
    let pawl = assert_cmd::cargo::cargo_bin("pawl");
    let bin = pawl.parent().unwrap().display().to_string();
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());

    let mut ran = 0;
    let mut failures = Vec::new();
    let mut skipped = std::collections::BTreeSet::new();
    for line in &commands {
        if let Some((prefix, _)) = NOT_RUN.iter().find(|(p, _)| line.starts_with(p)) {
            skipped.insert(*prefix);
            continue;
        }
        let mut command = line.clone();
        if let Some(rest) = line.strip_prefix("cargo run --release -p pawl-cli -- ") {
            command = format!("pawl {rest}");
        }
        if command.starts_with("pawl run ") && !command.contains("--driver manual") {
            command.push_str(&format!(" --scenario {}", scenario.display()));
        }
        // `logs -f` and `events --follow` follow a live run: bounded here.
        let follows = command.contains(" -f") || command.contains("--follow");
        let mut cmd = env.command("timeout");
        cmd.arg(if follows { "10" } else { "120" })
            .args(["sh", "-c", &command])
            .env("PATH", &path)
            .env("PAGER", "cat");
        let out = cmd.output().unwrap();
        ran += 1;
        let code = out.status.code().unwrap_or(-1);
        eprintln!("README `{line}` → exit {code}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        if stderr.contains("panicked")
            || stderr.starts_with("error:")
            || stderr.contains("\nerror: unexpected")
        {
            failures.push(format!("`{line}`: not pawl's own error: {stderr}"));
            continue;
        }
        let expected_fail = MAY_FAIL.iter().any(|(p, _)| command.starts_with(p));
        let ok = code == 0 || (follows && code == 124) || expected_fail;
        if !ok {
            failures.push(format!(
                "`{line}` exit {code}\nstdout: {stdout}\nstderr: {stderr}"
            ));
        }
        // What the README says the Quick start's run ends with.
        if command.starts_with("pawl run \"make the failing parser test pass\"") {
            assert_eq!(code, 0, "{stdout}\n{stderr}");
            assert!(stdout.contains("verdict SHIP"), "{stdout}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} README commands failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // Every exception is still in the README (a stale one hides nothing).
    for (prefix, why) in NOT_RUN {
        assert!(
            skipped.contains(prefix),
            "not in the README any more: {prefix} ({why})"
        );
    }
    for (prefix, why) in MAY_FAIL {
        assert!(
            commands.iter().any(|c| c.starts_with(prefix)),
            "not in the README any more: {prefix} ({why})"
        );
    }
    assert!(ran >= 30, "{ran}");
}

#[test]
fn readme_comments_are_stripped_outside_quotes_only() {
    assert_eq!(strip_comment("pawl runs   # history"), "pawl runs   ");
    assert_eq!(
        strip_comment("pawl lessons add \"run # first\"  # x"),
        "pawl lessons add \"run # first\"  "
    );
    assert_eq!(strip_comment("git commit -m \"…\""), "git commit -m \"…\"");
}

/// "done, verified by pawl" is printed only above a SHIP verdict (the decision is
/// `Verdict::outcome`, unit-tested for every verdict in pawl-engine): a run whose checks pass
/// from the start and whose agent does nothing ends UNPROVEN and is not announced as done; the
/// run that fixes the failing check is.
#[test]
fn only_a_ship_is_announced_as_done() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 2", NO_BREAKERS, ""));
    let stop_line = |r: &crate::Run| -> String {
        r.stdout
            .lines()
            .chain(r.stderr.lines())
            .find(|l| l.contains("stop reason:"))
            .unwrap_or_else(|| panic!("{}\n{}", r.stdout, r.stderr))
            .to_owned()
    };
    let fix = env.scenario(
        "fix",
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\\n\"}\n",
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &fix]);
    let line = stop_line(&r);
    assert!(
        line.contains("done, verified by pawl") && line.contains("verdict SHIP"),
        "{line}"
    );

    // Green from the start, an agent that does nothing.
    env.git(&["checkout", "-q", "main"]);
    env.write("done.txt", "already\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "green from the start"]);
    let idle = env.scenario(
        "idle",
        "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"nothing to do\"}\n",
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &idle]);
    let line = stop_line(&r);
    assert!(line.contains("verdict UNPROVEN"), "{line}");
    assert!(!line.contains("done, verified by pawl"), "{line}");
}
