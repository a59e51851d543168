//! `pawl demo`: the main job on an embedded example, with no network and no credentials.
//!
//! It creates a small git project whose test fails and runs the headless loop with a scripted
//! agent that (1) claims it is done without changing anything — pawl refuses and shows the
//! failing test —, (2) makes a wrong fix — still failing —, (3) fixes it — verified, SHIP.

use std::path::{Path, PathBuf};

use pawl_core::ExitCode;

use clap::Args;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::runs;
use crate::state::ensure_state;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to create the demo project (default: a new temporary directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

const CALC: &str = r#"#!/bin/sh
# A tiny calculator. add A B prints A + B.
add() {
    echo $(( $1 - $2 ))
}
"#;

const TEST: &str = r#"#!/bin/sh
# The project's tests, in the same shape as Rust's test output.
. ./calc.sh
passed=0
failed=0
check() {
    name=$1; want=$2; got=$3
    if [ "$got" = "$want" ]; then
        echo "test $name ... ok"; passed=$((passed + 1))
    else
        echo "test $name ... FAILED"
        echo "---- $name stdout ----"
        echo "assertion failed: add returned $got, expected $want"
        failed=$((failed + 1))
    fi
}
check add_zero 2 "$(add 2 0)"
check add_small 5 "$(add 2 3)"
check add_negative -1 "$(add 2 -3)"
if [ "$failed" -eq 0 ]; then
    echo "test result: ok. $passed passed; $failed failed; 0 ignored"
else
    echo "test result: FAILED. $passed passed; $failed failed; 0 ignored"
    exit 1
fi
"#;

const CONFIG: &str = r#"# pawl demo: a replay agent (no network, no credentials) and one gate that pawl runs itself.
[agent]
kind = "replay"

[limits]
max_iterations = 6
max_time = "5m"

[gates]
test = "sh test.sh"
"#;

/// The scripted agent of the demo.
pub const SCENARIO: &str = include_str!("demo/scenario.jsonl");

/// `mail_check`: the dispatch's answer to which requests a step may leave (`Ctx::mail_check`).
pub fn run(args: &DemoArgs, json: bool, mail_check: crate::ctx::MailCheck) -> CliResult<ExitCode> {
    let dir = match &args.dir {
        Some(d) => {
            let d = runs::absolute(d);
            if d.exists()
                && std::fs::read_dir(&d)
                    .map(|mut r| r.next().is_some())
                    .unwrap_or(true)
            {
                return Err(CliError::Failed(format!(
                    "{} exists and is not empty: pick a new directory",
                    d.display()
                )));
            }
            d
        }
        None => std::env::temp_dir().join(format!("pawl-demo-{}", std::process::id())),
    };
    create_project(&dir)?;
    let mut ctx = Ctx::at(dir.clone());
    ctx.json = json;
    ctx.mail_check = mail_check;
    ensure_state(&ctx, &mut Vec::new(), &mut Vec::new())?;
    let scenario = ctx.state_dir().join("demo-scenario.jsonl");
    std::fs::write(&scenario, SCENARIO)
        .map_err(CliError::io(format!("cannot write {}", scenario.display())))?;
    if !json {
        ctx.say(format!(
            "[pawl] demo project in {}: `sh test.sh` fails (add() subtracts). The scripted agent will\n\
             [pawl] (1) claim it is done without a change, (2) make a wrong fix, (3) fix it. pawl decides.",
            dir.display()
        ))?;
    }
    let start = runs::Start {
        goal: "make the calculator's tests pass".into(),
        driver: pawl_core::model::Driver::Headless,
        overrides: vec![(
            "agent.kind",
            pawl_core::config::AgentKind::Replay.to_string(),
            "--agent",
        )],
        scenario: Some(scenario),
        allow_dirty: false,
        force_nested: false,
        autonomous: false,
        // The demo's script is for one execute phase with the gates.
        mode: pawl_core::pipeline::ModeArg::Simple,
        interactive: false,
        await_answers: false,
        checks: Vec::new(),
        pass_env: Vec::new(),
        hidden_checks: Vec::new(),
        plan: None,
    };
    let code = runs::start(&mut ctx, &start)?;
    if !json {
        let report = std::fs::read_dir(ctx.state_dir().join("reports"))
            .ok()
            .and_then(|mut r| {
                r.find_map(|e| {
                    e.ok()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "md"))
                })
            });
        if let Some(p) = report {
            ctx.say(format!("[pawl] report: {}", p.display()))?;
        }
    }
    Ok(code)
}

fn create_project(dir: &Path) -> CliResult {
    std::fs::create_dir_all(dir)
        .map_err(CliError::io(format!("cannot create {}", dir.display())))?;
    let write = |name: &str, text: &str| -> CliResult {
        let p: PathBuf = dir.join(name);
        std::fs::write(&p, text).map_err(CliError::io(format!("cannot write {}", p.display())))
    };
    write("calc.sh", CALC)?;
    write("test.sh", TEST)?;
    write("pawl.toml", CONFIG)?;
    write(".gitignore", ".pawl/\n")?;
    let repo = pawl_git::Repo::init(dir, pawl_git::Options::default())?;
    repo.commit_all("demo project: a calculator whose test fails")?;
    Ok(())
}
